"""The ``agentv`` command: eval, validate, server. Prefect and litellm are imported only by
the commands that run something (``--help`` and ``validate`` stay well under a second).

Configuration errors print one line ``error: file:line: field: message`` and exit 2
(a traceback only with ``--verbose``).
"""
from __future__ import annotations

import sys
from typing import List, Optional

import typer

from agentv.flows.cli.argv import agentv_argv, given, run_app, whole_number
from agentv.flows.cli.baseline import baseline_app
from agentv.flows.cli.output import fail, setup_logging
from agentv.flows.cli.server import server_app
from agentv.providers.errors import ConfigError

# click's plain help (rich's option table cuts option names at 80 columns), up to 120 wide
app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  context_settings={"max_content_width": 120},
                  help="agentv: evaluate AI agents and LLM apps with AgentV eval suites on "
                  "Prefect.")
app.add_typer(server_app, name="server")
app.add_typer(baseline_app, name="baseline")
ALLOW_PATH_HELP = ("Let eval files read files under DIR too, beyond their suite's root (the git "
                   "repository holding them); repeatable. Also allowed_paths in "
                   ".agentv/config.yaml.")


def agentv_version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("agentv")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"agentv {agentv_version()}")
        raise typer.Exit(0)


@app.callback()
def main_options(version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True,
        help="Print agentv's version and exit.")) -> None:
    """agentv: evaluate AI agents and LLM apps with AgentV eval suites on Prefect."""


# switches whose False is a choice (--no-fail-on-error), not the switch left off
TRI_STATE = frozenset({"fail_on_error"})


@app.command("eval")
def eval_command(
    paths: List[str] = typer.Argument(..., metavar="PATHS...",
                                      help="Eval files, directories or globs."),
    targets: Optional[str] = typer.Option(None, metavar="FILE|DIR",
        help="targets.yaml, or a directory holding one (default: each eval file's nearest)."),
    target: Optional[List[str]] = typer.Option(None, metavar="NAME",
        help="Run every case on this target; repeat it to run every case on each "
        "(the case × target matrix)."),
    workers: Optional[str] = typer.Option(
        None, metavar="INT", show_default=False,
        help="Concurrent cases, 1-50 (default: the target's workers setting, else 1)."),
    out: Optional[str] = typer.Option(None, metavar="FILE",
        help="Results file (default .agentv/results/)."),
    output: Optional[str] = typer.Option(None, "--output", "-o", metavar="DIR",
        help="AgentV 4.x's run folder: DIR/index.jsonl (the results), per-test folders, "
        "benchmark.json, timing.json."),
    otel_file: Optional[str] = typer.Option(None, "--otel-file", metavar="FILE",
        help="Write OTLP JSON trace to file (importable by OTel backends): each test's spans, "
        "as AgentV 4.x writes them."),
    output_format: Optional[str] = typer.Option(
        None, "--output-format", "--format", metavar="jsonl|yaml",
        help="jsonl or yaml (default: from --out's extension, else jsonl)."),
    dry_run: bool = typer.Option(False, help="Use the mock for target and judge; no network."),
    dry_run_delay: Optional[str] = typer.Option(None, metavar="MS", help="Mock delay in ms."),
    dry_run_delay_min: Optional[str] = typer.Option(None, metavar="MS",
        help="Mock min delay in ms."),
    dry_run_delay_max: Optional[str] = typer.Option(None, metavar="MS",
        help="Mock max delay in ms."),
    test_id: Optional[List[str]] = typer.Option(None, "--test-id", "--eval-id", metavar="GLOB",
        help="Only cases whose id matches this glob; repeat it for more (any may match)."),
    dump_prompts: Optional[str] = typer.Option(None, metavar="DIR",
        help="Write each prompt to DIR."),
    dump_traces: Optional[str] = typer.Option(None, metavar="DIR", help="Write each trace to DIR."),
    include_trace: bool = typer.Option(False, help="Add trace and output_messages to records."),
    cache: bool = typer.Option(False, help="Cache LLM responses under .agentv/cache/."),
    trials: Optional[str] = typer.Option(None, metavar="K", help="Run each case K times."),
    max_retries: Optional[str] = typer.Option(None, metavar="N",
        help="Override the targets' max_retries."),
    resume: Optional[str] = typer.Option(None, metavar="FILE", help="Continue a run's results."),
    rerun_failed: Optional[str] = typer.Option(None, metavar="FILE",
        help="Continue a run's results, running its errors and failures again."),
    retry_errors: Optional[str] = typer.Option(None, metavar="FILE", help="A new results "
        "file from FILE's, running FILE's execution errors (and missing cases) again."),
    junit: Optional[str] = typer.Option(None, metavar="FILE", help="Also write JUnit XML to PATH."),
    task_runner: Optional[str] = typer.Option(None, metavar="default|dask",
        help="default, or dask (prefect-dask)."),
    dask_address: Optional[str] = typer.Option(None, metavar="URL",
        help="Dask scheduler, tcp://host:8786."),
    shard: Optional[str] = typer.Option(None, metavar="I/N",
        help="Run only shard I/N of the cases."),
    prefect_tasks: Optional[str] = typer.Option(
        None, metavar="batch|case", help="Prefect task runs per batch of cases (default), or "
        "two per case (invoke-provider, run-evaluators) to follow each case in the UI."),
    fail_under: Optional[str] = typer.Option(
        None, metavar="SCORE", help="Quality gate: exit 1 (flow run Failed) when the mean "
        "score is below SCORE (0-1). Also execution.fail_under in an eval file."),
    min_pass_rate: Optional[str] = typer.Option(
        None, metavar="RATE", help="Quality gate: exit 1 when the share of passing cases "
        "is below RATE (0-1). Also execution.min_pass_rate."),
    fail_on_error: Optional[bool] = typer.Option(
        None, "--fail-on-error/--no-fail-on-error", help="Quality gate: exit 1 when any "
        "case or evaluator errored (default: when a case errored, i.e. its target gave no "
        "answer; --no-fail-on-error: never). Also execution.fail_on_error."),
    threshold: Optional[str] = typer.Option(
        None, metavar="SCORE", help="AgentV's per-test threshold (0-1): a case passes when "
        "its score reaches it; exit 1 when any case scores below it."),
    budget_usd: Optional[str] = typer.Option(
        None, metavar="USD", help="Stop starting cases once the run has spent USD (targets "
        "and judges); the rest are recorded as not run (--resume runs them); exit 1."),
    tag: Optional[List[str]] = typer.Option(None, help="Only eval files with this tag."),
    exclude_tag: Optional[List[str]] = typer.Option(None, help="Skip files with this tag."),
    agent_timeout: Optional[str] = typer.Option(
        None, metavar="SECONDS",
        help="Seconds an agent target (cli, codex, vscode) may take per case."),
    keep_workspaces: bool = typer.Option(False, help="Keep every agent case's workspace "
        "(a failed or errored case's is kept anyway; records say where)."),
    allow_path: Optional[List[str]] = typer.Option(None, metavar="DIR", help=ALLOW_PATH_HELP),
    grader_target: Optional[str] = typer.Option(
        None, "--grader-target", "--judge-target", metavar="NAME", help="The target that "
        "judges every target's LLM-graded evaluators (AgentV 4.x's --grader-target; "
        "overrides each target's grader_target/judge_target)."),
    no_sandbox: bool = typer.Option(False, "--no-sandbox", help="Run case processes without "
        "the OS sandbox (bubblewrap): for platforms without it. See docs/security.md."),
    strict: bool = typer.Option(False, help="Treat warnings (unknown keys, ...) as errors."),
    show_failures: Optional[str] = typer.Option(
        None, metavar="N", show_default=False, help="List the N worst failed or errored cases "
        "and why (the FAILED block; 0: none; default 10)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log provider calls, tracebacks."),
) -> None:
    """Run eval suites: one scored record per case and target.

    Exit codes: 0 ok, 1 a quality gate, --threshold or --budget-usd failed, 2 bad input,
    3 the Prefect server lost mid-run (every case still recorded), 130 interrupted."""
    from dataclasses import fields

    from agentv.flows.prefect.recorder_process import discard, start_early
    flags = dict(locals())
    # Prefect is imported in the run's recorder process while this one starts
    recorder = start_early(task_runner, prefect_tasks, verbose)
    from agentv.flows.cli.console import run_from_cli
    from agentv.tasks.plan.options import EvalOptions
    setup_logging(verbose)
    names = {f.name for f in fields(EvalOptions)}
    try:
        shown = whole_number(show_failures, "--show-failures", 10)
        opts = EvalOptions(**{k: v for k, v in flags.items() if k in names
                              and (given(v) or (k in TRI_STATE and v is not None))})
        code = run_from_cli(opts, shown, recorder)
    except BaseException as err:
        discard(recorder)  # a run that never began records nothing (no-op once it ran)
        if isinstance(err, ConfigError):
            fail(err, verbose)
        raise
    raise typer.Exit(code)


@app.command("validate", short_help="Check eval and targets files as `eval` would, calling no "
             "target.")
def validate_command(
    paths: List[str] = typer.Argument(..., help="Files or directories."),
    allow_path: Optional[List[str]] = typer.Option(None, metavar="DIR", help=ALLOW_PATH_HELP),
    strict: bool = typer.Option(False, help="Treat warnings (unknown keys, ...) as errors."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Tracebacks on errors."),
) -> None:
    """Run the checks `agentv eval` runs before its first case, calling no target."""
    from agentv.tasks.plan.validate import validate_paths
    try:
        report = validate_paths(paths, strict=strict, allow_path=allow_path or [])
    except ConfigError as err:
        fail(err, verbose)
    from agentv.providers.printable import printable
    for w in report.warnings:
        typer.echo(f"warning: {printable(w)}", err=True)
    for e in report.errors:
        typer.echo(f"error: {printable(e)}", err=True)
    typer.echo(f"{len(report.checked)} file(s) valid, {report.invalid} invalid, "
               f"{len(report.warnings)} warning(s)")
    raise typer.Exit(2 if report.errors else 0)


@app.command("schema", short_help="Write JSON Schemas for editor autocompletion.")
def schema_command(
    out_dir: str = typer.Argument(".agentv/schemas", help="Directory for the schema files."),
) -> None:
    """Write JSON Schemas for eval, targets and config files (editor autocompletion)."""
    from agentv.tasks.plan.schema import write_schemas
    try:
        for path in write_schemas(out_dir):
            typer.echo(str(path))
    except ConfigError as err:
        fail(err)


@app.command("compare", short_help="Compare two runs case by case (exit 1 when B is worse).")
def compare_command(
    file1: str = typer.Argument(..., help="Baseline results (JSONL, YAML or Parquet)."),
    file2: str = typer.Argument(..., help="Candidate results (JSONL, YAML or Parquet)."),
    threshold: float = typer.Option(0.1, "--threshold", "-t",
                                    help="Delta for a win (>=) or a loss (<= -threshold)."),
    output_format: str = typer.Option("table", "--format", "-f", help="table or json."),
    as_json: bool = typer.Option(False, "--json", help="Shorthand for --format json."),
    fail_on_regression: bool = typer.Option(
        False, help="Exit 1 only when the 95% CI of the mean delta lies below -threshold."),
    only_changed: bool = typer.Option(False, "--only-changed",
                                      help="List only wins and losses (not ties)."),
    top: Optional[int] = typer.Option(None, "--top", min=1, metavar="N",
                                      help="List only the N largest changes, losses first."),
) -> None:
    """Compare two runs case by case; exit 1 when B's mean is below A's. The summary and
    the exit code count every matched case, whatever --only-changed / --top list."""
    import json

    from agentv.tasks.results.compare import compare_files, exit_code, format_table, shown
    fmt = "json" if as_json else output_format
    if fmt not in ("table", "json"):
        fail(ConfigError(f"unknown format '{fmt}' (expected table or json)", None, "--format"))
    try:
        result = compare_files(file1, file2, threshold)
    except ConfigError as err:
        fail(err)
    listed = {**result, "matched": shown(result["matched"], only_changed, top)}
    hidden = len(result["matched"]) - len(listed["matched"])
    typer.echo(json.dumps(listed, indent=2) if fmt == "json"
               else format_table(listed, file1, file2, hidden))
    raise typer.Exit(exit_code(result, fail_on_regression))


@app.command("report", short_help="Write a self-contained HTML report of one or more runs.")
def report_command(
    results: List[str] = typer.Argument(..., metavar="RESULTS...",
                                        help="Results file(s), one per run: JSONL, YAML or "
                                        "Parquet (quote a glob to read shards as one run)."),
    out: Optional[str] = typer.Option(None, "--out", "-o", metavar="FILE",
                                      help="HTML file (default: beside the results, .html)."),
) -> None:
    """Write a self-contained HTML report: one run, or a comparison of several (each
    results file is one run; trials within a run stay trials)."""
    from agentv.tasks.report import write_report
    try:
        path = write_report(results, out)
    except ConfigError as err:
        fail(err)
    typer.echo(f"report: {path}")


from agentv.flows.cli.init import init_command  # noqa: E402 - light modules (typer only)
from agentv.flows.cli.view import view_command  # noqa: E402
from agentv.flows.cli.worker import worker_command  # noqa: E402

app.command("worker", short_help="Run typed-API samples from a mailbox until SIGTERM.")(
    worker_command)
app.command("init", short_help="Write a starter suite that runs as it is (mock target).")(
    init_command)
app.command("view", short_help="Browse runs, failing cases and comparisons in a local web "
            "viewer.")(view_command)


def main(argv: list[str] | None = None) -> None:
    from agentv.providers import secrets
    from agentv.tasks.load.redact import scrub_console
    with secrets.scope() as registry:  # the command's secrets: what its loading registers
        scrub_console(registry)  # whatever reaches the terminal is scrubbed of them
        args = agentv_argv(sys.argv[1:] if argv is None else argv)
        try:
            run_app(app, args, "agentv")  # click's usage errors: one line, exit 2
        except SystemExit as done:
            if argv is None:  # the command itself: its exit is next
                exit_quickly(done.code)
            raise


def exit_quickly(code: int | str | None) -> None:
    """Spare the interpreter's exit a full garbage collection of every object the run made
    (move them to the permanent generation); the process ends next, through the plain
    ``sys.exit`` (threads joined, exit handlers run)."""
    import gc
    gc.freeze()


if __name__ == "__main__":
    main()
