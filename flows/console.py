"""What ``agentv eval`` shows on the terminal: progress while cases run, then the ERRORS
section and the summary. The progress bar appears only on a terminal."""
from __future__ import annotations

import sys
import time
from typing import Any

from tasks.plan import EvalOptions


class ProgressBar:
    def __init__(self) -> None:
        self._progress = None
        self._task = None

    def start(self, plan: Any) -> None:
        if not sys.stderr.isatty():
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
        self._progress = Progress("[progress.description]{task.description}", BarColumn(),
                                  MofNCompleteColumn(), TimeElapsedColumn(),
                                  console=Console(stderr=True), transient=True)
        self._task = self._progress.add_task("cases", total=len(plan.jobs))
        self._progress.start()

    def advance(self, record: dict[str, Any]) -> None:
        if self._progress is not None:
            self._progress.advance(self._task)

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def print_outcome(result: dict[str, Any], wall_s: float) -> None:
    from tasks.stats import format_summary
    errors = result.get("errors") or []
    if errors:
        print("\nERRORS")
        for e in sorted(errors, key=lambda e: (str(e["eval_id"]), str(e["target"]))):
            print(f"  {e['eval_id']} [{e['target']}]: {e['error']}")
    print(format_summary(result["summary"], wall_s))
    print(f"  results: {result['results']}")
    for kind in ("parquet", "junit"):
        path = (result["summary"].get("files") or {}).get(kind)
        if path:
            print(f"  {kind}: {path}")
    if result.get("flow_run_url"):
        print(f"  prefect flow run: {result['flow_run_url']}")


def run_from_cli(opts: EvalOptions) -> int:
    from flows.eval import run_eval
    started = time.perf_counter()
    bar = ProgressBar()
    try:
        result = run_eval(opts, on_record=bar.advance, on_plan=bar.start)
    finally:
        bar.stop()
    if result.get("io_error"):  # disk full, file too large: one error line, then the summary
        print(f"error: {result['io_error']}", file=sys.stderr)
    print_outcome(result, time.perf_counter() - started)
    if result.get("interrupted"):
        print(f"  interrupted: {result.get('not_run', 0)} case(s) not run; continue with "
              f"--resume {result['results']}")
        return exit_code(result)
    return 0


def exit_code(result: dict[str, Any]) -> int:
    """2 after an I/O failure, 128 + signal after SIGTERM (143) or Ctrl-C (130)."""
    import signal
    if result.get("io_error"):
        return 2
    return 143 if result.get("signal") == signal.SIGTERM else 130
