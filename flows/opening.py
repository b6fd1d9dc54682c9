"""Opening a run: ``open_run``, the one factory of a ``Run`` — for the ``agentv`` command,
the typed API and deployments alike — from checked options: its results file, the records
it continues, its plan and its preflight-checked runtimes. Before Prefect is imported."""
from __future__ import annotations

import os
import sys
from typing import Any, Callable, Sequence

from agentv.flows.prefect.shared_limits import prefect_pools
from agentv.flows.run import Run
from agentv.providers import secrets
from agentv.providers.printable import printable
from agentv.tasks.engine.case_runner import TargetRuntime
from agentv.tasks.engine.runtime import build_runtimes
from agentv.tasks.plan.plan import EvalOptions, Plan, build_plan

Log = Callable[[str], None]


def to_stderr(message: str) -> None:
    print(printable(message), file=sys.stderr)


def open_run(opts: EvalOptions, *, prepared: tuple[Plan, dict[str, TargetRuntime]] | None = None,
             on_record: Callable[[dict], None] | None = None, log: Log = to_stderr,
             started: float | None = None,
             remote: Callable[[Sequence[Any]], Any] | None = None) -> Run:
    """The one factory of a ``Run``: its results file locked first (a second run on it
    fails at once; emptied only when the run begins, so a configuration error never costs
    an earlier run's results), the records it continues, the plan and the preflight-checked
    runtimes (or the ``prepared`` ones of the typed API). ConfigError before anything runs."""
    from agentv.tasks.plan.resume import match_agentv4
    registry = secrets.current() or secrets.SecretRegistry()
    with secrets.scope(registry):  # what loading finds is the run's to scrub
        fresh = bool(opts.continued) and not os.path.exists(opts.continued or "")
        writer = open_results(opts)
        try:
            finished = earlier_records(opts, log, fresh) if prepared is None else None
            if prepared is None:
                plan = build_plan(opts, warn=lambda w: log(f"warning: {w}"))
                if finished is not None:
                    match_agentv4(finished, plan.jobs)
                runtimes = build_runtimes(plan, prefect_pools(log))
            else:
                plan, runtimes = prepared
        except BaseException:
            writer.abandon()
            raise
    folder = writer.sink.folder if writer.sink is not None else None
    if folder is not None:  # benchmark.json names the eval files and the planned tests
        folder.plan([s.path for s in plan.suites], len(plan.jobs),
                    {n: t.where.rsplit(":", 1)[0] for n, t in plan.targets.items() if t.where})
    return Run(plan, runtimes, writer, finished=finished, on_record=on_record,
               started=started, registry=registry, remote=remote)


def open_results(opts: EvalOptions):
    """The locked writer of this run's results file (the file it continues, ``--out``, or a
    new timestamped file)."""
    from agentv.tasks.plan.outputs import default_results_path
    from agentv.tasks.results.frames import parquet_path_for
    from agentv.tasks.results.run_folder import RunFolder
    from agentv.tasks.results.run_folder_otel import OtelFile
    from agentv.tasks.results.sink import RunSink
    from agentv.tasks.results.write import ResultWriter
    otel = OtelFile(opts.otel_file) if opts.otel_file else None
    if opts.continued:
        folder = RunFolder(opts.output, continues=True) if opts.output else None
        return ResultWriter(opts.continued, opts.output_format, append=True,
                            flag="--resume" if opts.resume else "--rerun-failed",
                            sink=RunSink(parquet_path_for(opts.continued), folder, otel))
    opts.out = opts.out or str(default_results_path(opts.output_format))
    folder = RunFolder(opts.output) if opts.output else None
    return ResultWriter(opts.out, opts.output_format,
                        sink=RunSink(parquet_path_for(opts.out), folder, otel))


def earlier_records(opts: EvalOptions, log, fresh: bool = False):
    """What an earlier run left that this one keeps (None: a fresh run): the continued
    file's records (``--resume``; ``--rerun-failed`` takes its errors and failures out to
    run again), or the ``--retry-errors`` file's records but its errors."""
    from pathlib import Path

    from agentv.tasks.plan.outputs import implied_format
    from agentv.tasks.plan.resume import carried_over, failed, load_finished, not_run
    if opts.retry_errors:
        source = Path(opts.retry_errors)
        finished = carried_over(source, implied_format(str(source)) or "jsonl")
        log(f"agentv: retrying the errors of {source}: {finished.again} case(s) run again, "
            f"{len(finished.records)} record(s) kept")
        return finished
    if not opts.continued:
        return None
    path = Path(opts.continued)
    if fresh:  # --resume FILE not written yet: a fresh run into it (as AgentV 4.x)
        log(f"agentv: --resume: {path} does not exist yet; starting a fresh run into it")
        return None
    again = failed(opts.threshold) if opts.rerun_failed else not_run
    finished = load_finished(path, opts.output_format, again)
    verb = "re-running the failures of" if opts.rerun_failed else "resuming"
    log(f"agentv: {verb} {path}: {len(finished.records)} case(s) already recorded"
        + (f", {finished.again} to run again" if finished.again else "")
        + (f", cut a torn last line ({finished.repaired_bytes} bytes)"
           if finished.repaired_bytes else ""))
    for number in finished.torn_lines:
        log(f"warning: {path}:{number}: damaged result record skipped (saved to {path}.torn); "
            "its case runs again")
    return finished
