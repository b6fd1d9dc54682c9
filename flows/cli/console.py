"""What ``agentv eval`` shows on the terminal: a progress line from the first second
(what it is waiting for, then cases done, ETA and running pass/fail/error counts), then
the ERRORS and WARNINGS sections and the summary. The progress line appears only on a
terminal."""
from __future__ import annotations

import sys
import time
from typing import Any

from agentv.flows.prefect.recording import PREFECT_LOST_EXIT
from agentv.providers.printable import printable
from agentv.tasks.plan.plan import EvalOptions

WAITING = {"start": "loading eval files and targets",
           "plan": "starting the Prefect flow run (importing Prefect, connecting to its server)",
           "cases": "running cases"}


class ProgressBar:
    def __init__(self, enabled: bool | None = None) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._progress: Any = None  # rich.progress.Progress, imported only on a terminal
        self._task: Any = None
        self.counts = {"pass": 0, "fail": 0, "error": 0}

    def begin(self, console=None) -> None:
        """Show the progress line at once, saying what agentv is waiting for."""
        if not self.enabled:
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        self._progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                  MofNCompleteColumn(), TextColumn("eta"), TimeRemainingColumn(),
                                  TimeElapsedColumn(), console=console or Console(stderr=True),
                                  transient=True)
        self._task = self._progress.add_task(WAITING["start"], total=None)
        self._progress.start()

    def start(self, plan: Any) -> None:
        if self._progress is not None:
            self._progress.update(self._task, total=len(plan.jobs), description=WAITING["plan"])

    def description(self) -> str:
        c = self.counts
        return f"cases: {c['pass']} pass, {c['fail']} fail, {c['error']} error"

    def advance(self, record: dict[str, Any]) -> None:
        verdict = "error" if record.get("error") else (
            "pass" if record.get("verdict", _verdict(record)) == "pass" else "fail")
        self.counts[verdict] += 1
        if self._progress is not None:
            self._progress.update(self._task, advance=1, description=self.description())

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def _verdict(record: dict[str, Any]) -> str:
    from agentv.evaluators.base import verdict_for
    return verdict_for(float(record.get("score") or 0.0))


def _where(e: dict[str, Any]) -> str:
    parts = [p for p in (e.get("file"), str(e.get("eval_id")), e.get("evaluator")) if p]
    return printable(f"{':'.join(parts)} [{e.get('target')}]")


def format_problems(title: str, problems: list[dict[str, Any]]) -> list[str]:
    """``file:case:evaluator [target]: message`` lines, sorted."""
    if not problems:
        return []
    def key(e: dict[str, Any]) -> tuple[str, ...]:
        return (str(e.get("file")), str(e["eval_id"]), str(e.get("target")),
                str(e.get("evaluator") or ""))
    return ["", title] + [f"  {_where(e)}: {printable(e['error'])}"
                          for e in sorted(problems, key=key)]


def print_outcome(result: dict[str, Any], wall_s: float, show_failures: int = 10) -> None:
    from agentv.tasks.results.summary_text import format_failures, format_summary
    for line in format_problems("ERRORS", result.get("errors") or []):
        print(line)
    for line in format_problems("WARNINGS", result.get("warnings") or []):
        print(line)
    for line in format_failures(result["summary"], show_failures):
        print(line)
    print(format_summary(result["summary"], wall_s))
    for line in target_lines(result["summary"].get("targets") or []):
        print(line)
    print(f"  results: {result['results']}")
    for kind in ("parquet", "junit"):
        path = (result["summary"].get("files") or {}).get(kind)
        if path:
            print(f"  {kind}: {path}")
    print(f"  view: {_view_link(result['results'])}")
    if result.get("flow_run_url"):
        print(f"  prefect flow run: {result['flow_run_url']}")


def _view_link(results: str) -> str:
    """The running viewer's page of this run, else the command that opens it."""
    from agentv.flows.cli.view import run_link
    return run_link(results) or f"agentv view {results}"


def target_lines(rows: list[dict[str, Any]]) -> list[str]:
    """A matrix run's summary per target (``--target a --target b``)."""
    if not rows:
        return []
    width = max(len(printable(r["target"])) for r in rows)
    return ["  per target:"] + [
        f"    {printable(r['target']):<{width}}  cases: {r['n']}   mean: "
        + ("n/a" if r["mean"] is None else f"{r['mean']:.3f}")
        + f"   pass rate: {100 * (r['pass_rate'] or 0):.1f}%"
        + f"   errors: {100 * (r['error_rate'] or 0):.1f}%" for r in rows]


class KeptWorkspaces:
    """The agent workspaces the run kept (AgentV's "Preserved workspaces:" list): a failed
    or errored case's, and with --keep-workspaces every case's."""

    def __init__(self, keep_all: bool) -> None:
        self.keep_all = keep_all
        self.kept: list[str] = []

    def add(self, record: dict[str, Any]) -> None:
        if record.get("workspace_path"):
            case = record.get("eval_id") or record.get("test_id")
            self.kept.append(printable(f"  {case} [{record.get('target')}] -> "
                                       f"{record['workspace_path']}"))

    def lines(self) -> list[str]:
        if not self.kept:
            return []
        hint = [] if self.keep_all else [
            "Use --keep-workspaces to preserve all workspaces for inspection."]
        return ["", "Preserved workspaces:", *sorted(self.kept), *hint]


def run_from_cli(opts: EvalOptions, show_failures: int = 10, recorder: Any = None) -> int:
    """Run, print the outcome (the ``show_failures`` worst failed cases); exit code 0, 1
    (a quality gate failed), 2 (I/O failure), 3 (the Prefect API lost mid-run), 130/143
    (interrupted by Ctrl-C/SIGTERM)."""
    import logging

    from agentv.flows.launch import run_eval
    started = time.perf_counter()
    # a log record Prefect cannot send is not the user's error: when the API is lost, one
    # ``error:`` line says so (Prefect's log sender would print "--- Error logging to API
    # ---" and the exception, unterminated, in front of it); --verbose keeps them
    logging.raiseExceptions = bool(opts.verbose)
    bar, kept = ProgressBar(), KeptWorkspaces(opts.keep_workspaces)
    bar.begin()

    def on_record(record: dict[str, Any]) -> None:
        bar.advance(record)
        kept.add(record)

    def on_plan(plan: Any) -> None:
        bar.start(plan)
        kept.keep_all = plan.keep_workspaces  # the flag, or the project config's
    try:
        result = run_eval(opts, on_record=on_record, on_plan=on_plan, started=started,
                          recorder=recorder)
    except Exception as err:
        from agentv.flows.prefect.recording import api_lost
        if not api_lost(err) or opts.verbose:
            raise
        return prefect_lost_midrun(err, opts)
    finally:
        bar.stop()
    if result.get("io_error"):  # disk full, file too large: one error line, then the summary
        print(f"error: {result['io_error']}", file=sys.stderr)
    if result.get("prefect_lost"):
        print(prefect_lost_line(result), file=sys.stderr)
    print_outcome(result, result.get("wall_s") or time.perf_counter() - started, show_failures)
    for line in kept.lines():
        print(line)
    if result.get("interrupted"):
        print(f"  interrupted: {result.get('not_run', 0)} case(s) not run; continue with "
              f"--resume {result['results']}")
        return exit_code(result)
    if result.get("prefect_lost"):
        return PREFECT_LOST_EXIT
    return 1 if result.get("gate_failures") else 0


def prefect_lost_line(result: dict[str, Any]) -> str:
    """The one line saying Prefect stopped recording, and how to go on."""
    head = f"error: Prefect recording stopped: {result['prefect_lost']}"
    if result.get("interrupted") or result.get("io_error"):
        return head  # the run's own resume hint follows the summary
    return (f"{head}; every case ran and is recorded in {result['results']} (the Prefect "
            "flow run is incomplete); start a Prefect server (`agentv server start`) "
            "before the next run")


def prefect_lost_midrun(err: Exception, opts: EvalOptions) -> int:
    """The last resort: Prefect failed where agentv could not go on without it."""
    from agentv.flows.prefect.recording import lost_reason
    out = opts.continued or opts.out
    print(f"error: Prefect recording stopped: {lost_reason(err)}; the cases recorded so far "
          f"are in {out}; continue with --resume {out}", file=sys.stderr)
    return PREFECT_LOST_EXIT


def exit_code(result: dict[str, Any]) -> int:
    """2 after an I/O failure, 128 + signal after SIGTERM (143) or Ctrl-C (130)."""
    import signal
    if result.get("io_error"):
        return 2
    return 143 if result.get("signal") == signal.SIGTERM else 130
