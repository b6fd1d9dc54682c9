"""Launching a run: ``run_eval`` (the programmatic entry, also behind ``agentv eval``) and
``run_plan`` (a prebuilt plan, as the typed API's ``run_dataset`` has).

Validation and preflight happen before Prefect is imported (fast exit 2 on bad input);
then the local Prefect server is ensured and the ``agentv-eval`` flow runs.
"""
from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any, Callable, Sequence

from agentv.flows.prefect.shared_limits import prefect_pools
from agentv.providers import secrets
from agentv.providers.printable import printable
from agentv.tasks.engine.runtime import build_runtimes
from agentv.tasks.plan.plan import EvalOptions, build_plan


def run_eval(opts: EvalOptions, *, on_record: Callable[[dict], None] | None = None,
             on_plan: Callable[[Any], None] | None = None,
             log: Callable[[str], None] = lambda m: print(printable(m), file=sys.stderr),
             started: float | None = None) -> dict[str, Any]:
    """Load and plan (``opts`` were checked when made), preflight, then run the flow;
    raises ConfigError before anything runs. ``result["gate_failures"]`` lists failed
    quality gates (the flow run ends Failed).

    The results file is locked first (a second run on it fails at once), but emptied only
    when the run starts: a configuration error never costs an earlier run's results.
    The secrets its loading finds go to the caller's registry (``providers.secrets``: the
    ``agentv`` command's), else to one of this call."""
    from agentv.flows.prefect.preload import preload_if_api_ready, quiet_prefect_console
    from agentv.tasks.plan.resume import match_agentv4
    started = started or time.perf_counter()
    quiet_prefect_console(opts.verbose)
    with secrets.scope(), sigterm_held(opts.task_runner != "dask"):  # preload inherits it
        preload_if_api_ready()  # a server answers: import Prefect while files are validated
        fresh = bool(opts.continued) and not os.path.exists(opts.continued or "")
        writer = open_results(opts)
        try:
            finished = earlier_records(opts, log, fresh)
            plan = build_plan(opts, warn=lambda w: log(f"warning: {w}"))
            if finished is not None:
                match_agentv4(finished, plan.jobs)
            runtimes = build_runtimes(plan, prefect_pools(log))
        except BaseException:
            writer.abandon()
            raise
        if on_plan:
            on_plan(plan)
        return run_plan(plan, runtimes, on_record=on_record, log=log, finished=finished,
                        writer=writer, started=started)


def open_results(opts: EvalOptions):
    """The locked writer of this run's results file (the file it continues, ``--out``, or a
    new timestamped file)."""
    from agentv.tasks.plan.outputs import default_results_path
    from agentv.tasks.results.frames import parquet_path_for
    from agentv.tasks.results.run_folder import RunFolder
    from agentv.tasks.results.sink import RunSink
    from agentv.tasks.results.write import ResultWriter
    if opts.continued:
        folder = RunFolder(opts.output, continues=True) if opts.output else None
        return ResultWriter(opts.continued, opts.output_format, append=True,
                            flag="--resume" if opts.resume else "--rerun-failed",
                            sink=RunSink(parquet_path_for(opts.continued), folder))
    opts.out = opts.out or str(default_results_path(opts.output_format))
    folder = RunFolder(opts.output) if opts.output else None
    return ResultWriter(opts.out, opts.output_format,
                        sink=RunSink(parquet_path_for(opts.out), folder))


def run_plan(plan, runtimes, *, on_record: Callable[[dict], None] | None = None,
             log: Callable[[str], None] = lambda m: print(printable(m), file=sys.stderr),
             finished=None, writer=None, started: float | None = None,
             remote: Callable[[Sequence[Any]], Any] | None = None) -> dict[str, Any]:
    """Run a validated plan (targets preflight-checked) through the ``agentv-eval`` flow.
    What is already built travels to the flow in-process (``flows.handover.launching``),
    for the duration of this call only. The first cases start at once (a head start) while
    the Prefect API is ensured, Prefect imported and the flow run created."""
    from agentv.flows.handover import Launch, launching
    from agentv.flows.prefect.preload import quiet_prefect_console
    quiet_prefect_console(plan.options.verbose)
    if writer is None and finished is None and not plan.options.continued:
        writer = open_results(plan.options)  # its sink builds Parquet and stats as it writes
    folder = writer.sink.folder if writer is not None and writer.sink is not None else None
    if folder is not None:  # benchmark.json names the eval files and the planned tests
        folder.plan([s.path for s in plan.suites], len(plan.jobs))
    launch = Launch(plan=plan, runtimes=runtimes, writer=writer, finished=finished,
                    on_record=on_record, started=started, remote=remote)
    try:
        from agentv.flows.prefect.server import ensure_api
        ensure_api(log)  # before any case: a dead PREFECT_API_URL is a configuration error
        with secrets.scope(), sigterm_held(plan.options.task_runner != "dask"), \
                interrupt_handler(launch, log), launching(launch):
            final: Any = asyncio.run(_launch_flow(launch))
        result = launch.outcome if launch.outcome is not None else final.result()
        return {**result, "prefect_lost": launch.recording.lost}
    except BaseException:
        if writer is not None:
            writer.abandon()  # nothing ran: the file we made goes (a begun one stays)
        raise
    finally:
        if writer is not None:
            writer.close()
        launch.recording.close()
        launch.release()
        if "prefect.logging.handlers" in sys.modules and not launch.recording.lost:
            from prefect.logging.handlers import APILogWorker
            APILogWorker.drain_all(timeout=5)  # the run's logs reach the API before we return


async def _launch_flow(launch) -> Any:
    """Head start the cases, then (Prefect imported on a thread meanwhile) run the flow,
    watching its API. The API lost before the flow run opened the run (it could not be
    created): the flow's function runs without Prefect. Lost after the flow's outcome (its
    final state could not be sent): the outcome stands."""
    import os
    launch.head = _head_start(launch)
    url = os.environ.get("PREFECT_API_URL")
    watch = asyncio.ensure_future(launch.recording.watch(url)) if url else None
    try:
        flow, tags = await asyncio.to_thread(_prefect_flow, launch.plan)
        launch.recording.prefect_imported()
        final = None
        from agentv.flows.prefect.preload import drop_gate_echo
        drop_gate_echo(launch.plan.options.verbose)
        try:
            with tags:
                final = await flow(options=_flow_options(launch.plan), return_state=True)
        except Exception as err:
            from agentv.flows.prefect.recording import api_lost
            if not api_lost(err) or (launch.opened and launch.outcome is None):
                raise
            launch.recording.stop(err)
        if launch.recording.lost and not launch.opened:  # no flow run took the run
            from agentv.flows.pipeline import eval_flow
            await eval_flow.fn(options=_flow_options(launch.plan))
        return final
    finally:
        if watch is not None:
            watch.cancel()
        if launch.head is not None:
            await launch.head.close()


def _head_start(launch):
    from agentv.tasks.engine.head_start import HeadStart, head_start_allowed
    from agentv.tasks.results.ledger import RunLedger
    if launch.writer is None or launch.remote is not None or not head_start_allowed(launch.plan):
        return None
    launch.ledger = RunLedger(launch.writer, launch.control, launch.on_record, launch.finished,
                              launch.plan.record_thresholds())
    head = HeadStart(launch.plan, launch.runtimes, launch.ledger)
    head.begin()
    return head


def _prefect_flow(plan):
    """The ``agentv-eval`` flow named for this run, and its tags (imports Prefect, which
    reads its settings, the API URL included, at import)."""
    from prefect import tags

    from agentv.flows.pipeline import eval_flow
    from agentv.flows.prefect.naming import plan_labels, run_name, run_tags
    from agentv.tasks.load.redact import redact_log_handlers
    from agentv.tasks.plan.scale import make_task_runner
    redact_log_handlers()  # Prefect's handlers (console, API) scrub too
    runner = make_task_runner(plan.options.task_runner, plan.options.dask_address)
    suites, targets, datasets = plan_labels(plan)
    flow = eval_flow.with_options(flow_run_name=run_name(suites, targets),
                                  **({"task_runner": runner} if runner else {}))
    return flow, tags(*run_tags(suites, targets, datasets))


def _flow_options(plan) -> dict[str, Any]:
    from agentv.tasks.load.redact import redact_obj
    return redact_obj(_jsonable(asdict(plan.options)))


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


SIGNAL_NAMES = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated (SIGTERM)"}


@contextmanager
def sigterm_held(hold: bool = True):
    """SIGTERM waits, blocked in this thread and in every thread started meanwhile (they
    inherit the mask), until the flow re-arms agentv's graceful stop and unblocks it in the
    main thread (pipeline._arm_signals). Prefect's flow engine installs its own SIGTERM
    bridge first, and a SIGTERM landing in between (the head start's cases are already
    running) would crash the flow run instead of stopping it. Every subprocess starts under
    the reaper, which clears the mask for the agent. Not with Dask (no head start; its local
    cluster's processes must not inherit the mask)."""
    if not hold or threading.current_thread() is not threading.main_thread():
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


@contextmanager
def interrupt_handler(launch, log):
    """First Ctrl-C or SIGTERM: stop scheduling, let in-flight cases finish (or cancel them
    after a grace period), flush and summarize. A second one aborts at once."""
    control = launch.control

    def on_signal(signum, frame):
        if control.stopping:
            raise KeyboardInterrupt
        control.request_stop(signum)
        log(f"\nagentv: {SIGNAL_NAMES.get(signum, 'stopped')} - finishing in-flight cases "
            "(send it again to abort)")
    try:
        previous = {sig: signal.signal(sig, on_signal) for sig in SIGNAL_NAMES}
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    launch.signal_handler = on_signal  # the flow re-arms it over Prefect's SIGTERM bridge
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _jsonable(options: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in options.items() if v not in (None, {}, [], False) or k == "paths"}
