"""From checked options to a finished run: ``execute`` runs a ``Run`` (made by
``flows.opening.open_run``) through the ``agentv-eval`` flow; ``run_eval`` is both, the
programmatic entry behind ``agentv eval``.

Validation and preflight happen before Prefect is imported (fast exit 2 on bad input);
then the local Prefect server is ensured and the flow runs with the run in hand.
"""
from __future__ import annotations

import asyncio
import os
import threading
import time
from contextlib import suppress
from dataclasses import asdict
from typing import Any, Callable

from agentv.flows.opening import Log, open_run, to_stderr
from agentv.flows.prefect.preload import IMPORT_THREAD
from agentv.flows.run import Run, as_is
from agentv.flows.signals import interrupt_handler, sigterm_held
from agentv.tasks.plan.plan import EvalOptions


def run_eval(opts: EvalOptions, *, on_record: Callable[[dict], None] | None = None,
             on_plan: Callable[[Any], None] | None = None, log: Log = to_stderr,
             started: float | None = None) -> dict[str, Any]:
    """Load and plan (``opts`` were checked when made), preflight, then run the flow;
    raises ConfigError before anything runs. ``result["gate_failures"]`` lists failed
    quality gates (the flow run ends Failed). The secrets its loading finds go to the
    caller's registry (``providers.secrets``: the ``agentv`` command's), else the run's."""
    from agentv.flows.prefect.preload import preload_if_api_ready, quiet_prefect_console
    quiet_prefect_console(opts.verbose)
    with sigterm_held(opts.task_runner != "dask"):  # preload's thread inherits the hold
        preload_if_api_ready()  # a server answers: import Prefect while files are validated
        run = open_run(opts, on_record=on_record, log=log,
                       started=started or time.perf_counter())
        if on_plan:
            on_plan(run.plan)
        return execute(run, log)


def execute(run: Run, log: Log = to_stderr) -> dict[str, Any]:
    """Run ``run`` through the ``agentv-eval`` flow: the Prefect API ensured first (a dead
    ``PREFECT_API_URL`` is a configuration error before any case), Ctrl-C and SIGTERM
    stopping it gracefully. Its cases start at once (a head start) while Prefect is
    imported and the flow run created."""
    from agentv.flows.prefect.preload import quiet_prefect_console
    quiet_prefect_console(run.plan.options.verbose)
    recording = run.recording
    try:
        with sigterm_held(run.plan.options.task_runner != "dask"), \
                interrupt_handler(run.control, log) as handler:
            run.signal_handler = handler
            final: Any = asyncio.run(_run_flow(run, log))
        result = run.outcome if run.outcome is not None else final.result()
        return {**result, "prefect_lost": recording.lost}
    finally:
        if recording.prefect_ready and not recording.lost:
            from prefect.logging.handlers import APILogWorker
            APILogWorker.drain_all(timeout=5)  # the run's logs reach the API before we return


async def _run_flow(run: Run, log: Log) -> Any:
    """Ensure the Prefect API (nothing has begun: a dead one costs no results file), begin
    the run (its head start), then (Prefect imported on a thread meanwhile) run the flow,
    watching its API. The API lost before the flow took the run (the flow run could not be
    created): the flow's function runs without Prefect. Lost after the flow's outcome (its
    final state could not be sent): the outcome stands."""
    from agentv.flows.prefect.server import ensure_api
    async with run:
        ensure_api(log)  # before any case: a dead PREFECT_API_URL is a configuration error
        run.begin()
        url = os.environ.get("PREFECT_API_URL")
        watch = asyncio.ensure_future(run.recording.watch(url)) if url else None
        try:
            prefect = await _prefect_unless_stopped(run)
            if prefect is None:  # stopped first: the run ends without Prefect
                await _finish_unrecorded(run)
                return None
            flow, tags = prefect
            run.recording.prefect_imported()
            from agentv.flows.prefect.preload import drop_gate_echo
            drop_gate_echo(run.plan.options.verbose)
            final = None
            try:
                with tags:
                    final = await flow(options=_flow_options(run.plan), run=as_is(run),
                                       return_state=True)
            except Exception as err:
                from agentv.flows.prefect.recording import api_lost
                if not api_lost(err) or (run.opened and run.outcome is None):
                    raise
                run.recording.stop(err)
            if run.recording.lost and not run.opened:  # no flow run took the run
                from agentv.flows.pipeline import eval_flow
                await eval_flow.fn(options=_flow_options(run.plan), run=run)
            return final
        finally:
            if watch is not None:
                watch.cancel()


async def _prefect_unless_stopped(run: Run) -> Any:
    """``_prefect_flow`` (Prefect imported on a daemon thread), or None when the run is told
    to stop first: a stop obeyed in seconds does not wait for the import (a minute on a
    loaded machine), nor does the process's exit."""
    loop = asyncio.get_running_loop()
    ready: asyncio.Future = loop.create_future()

    def settle(result: Any, err: BaseException | None) -> None:
        if not ready.done():
            ready.set_exception(err) if err is not None else ready.set_result(result)

    def load() -> None:
        result, err = None, None
        try:
            result = _prefect_flow(run.plan)
        except BaseException as caught:  # noqa: BLE001 - raised in the run's loop instead
            err = caught
        with suppress(RuntimeError):  # the loop is gone: the run ended without Prefect
            loop.call_soon_threadsafe(settle, result, err)
    threading.Thread(target=load, name=IMPORT_THREAD, daemon=True).start()
    while not ready.done():
        if run.control.stopping:
            return None
        await asyncio.wait({ready}, timeout=0.1)
    return ready.result()


async def _finish_unrecorded(run: Run) -> None:
    """A run stopped before its flow run began: its started cases finish (or are cancelled
    after the grace period), then it is summarized from its records, as the flow would."""
    from agentv.flows.artifacts.outcome import run_info
    from agentv.flows.artifacts.run_summary import final_summary
    await run.jobs.settle_started()
    info = run_info(run.plan, run.ledger, getattr(run.jobs, "budget", None))
    info.notes.append("stopped before its Prefect flow run began: the run is not in Prefect")
    info.io_error = run.control.io_error
    summary = await asyncio.to_thread(final_summary, run.writer.path, run.writer.sink,
                                      run.plan.options, info)
    run.finish(summary, time.perf_counter() - (run.started or time.perf_counter()),
               max(0, len(run.pending()) - run.writer.count))


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


def _jsonable(options: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in options.items() if v not in (None, {}, [], False) or k == "paths"}
