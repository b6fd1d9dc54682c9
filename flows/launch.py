"""From checked options to a finished run: ``execute`` runs a ``Run`` (made by
``flows.opening.open_run``); ``run_eval`` is both, the programmatic entry behind
``agentv eval``.

Validation and preflight happen before anything runs (fast exit 2 on bad input); then the
local Prefect server is ensured and the run goes, recorded in Prefect one of two ways:

* by default its stages run here, without Prefect, and the recorder process records them
  (flows/prefect/mirror.py), started as the run is opened so that Prefect's import happens
  on another core while the files are read and the first cases run;
* ``--task-runner dask`` and ``--prefect-tasks case`` need Prefect's engine here (its task
  runner, a task run per case): the ``agentv-eval`` flow runs in this process.
"""
from __future__ import annotations

import asyncio
import os
import time
from dataclasses import asdict
from typing import Any, Callable

from agentv.flows.opening import Log, open_run, to_stderr
from agentv.flows.prefect.mirror import Mirror
from agentv.flows.run import Run, as_is
from agentv.flows.signals import interrupt_handler, sigterm_held
from agentv.flows.stages import run_stages
from agentv.tasks.plan.plan import EvalOptions


def run_eval(opts: EvalOptions, *, on_record: Callable[[dict], None] | None = None,
             on_plan: Callable[[Any], None] | None = None, log: Log = to_stderr,
             started: float | None = None, recorder: Any = None) -> dict[str, Any]:
    """Load and plan (``opts`` were checked when made), preflight, then run; raises
    ConfigError before anything runs. ``result["gate_failures"]`` lists failed quality
    gates (the flow run ends Failed). The secrets its loading finds go to the caller's
    registry (``providers.secrets``: the ``agentv`` command's), else the run's.
    ``recorder``: the run's recorder process, if its caller started it already
    (flows/prefect/recorder_process.py)."""
    from agentv.flows.prefect.preload import quiet_prefect_console
    from agentv.flows.prefect.recorder_process import start_early
    quiet_prefect_console(opts.verbose)
    recorder = recorder or start_early(opts.task_runner, opts.prefect_tasks, opts.verbose)
    mirror = Mirror.for_run(opts, recorder) if recorder is not None else None
    try:
        run = open_run(opts, on_record=on_record, log=log,
                       started=started or time.perf_counter())
    except BaseException:
        if mirror is not None:
            mirror.discard()
        raise
    if on_plan:
        on_plan(run.plan)
    return execute(run, log, mirror)


def execute(run: Run, log: Log = to_stderr, mirror: Mirror | None = None) -> dict[str, Any]:
    """Run ``run``, Ctrl-C and SIGTERM stopping it gracefully, recorded in Prefect (a dead
    ``PREFECT_API_URL`` is a configuration error before any case)."""
    from agentv.flows.prefect.preload import quiet_prefect_console
    quiet_prefect_console(run.plan.options.verbose)
    from agentv.flows.prefect.recorder_process import mirrored
    opts = run.plan.options
    if mirrored(opts.task_runner, opts.prefect_tasks):
        return _execute_mirrored(run, log, mirror)
    return _execute_in_flow(run, log)


def _execute_mirrored(run: Run, log: Log, mirror: Mirror | None) -> dict[str, Any]:
    with interrupt_handler(run.control, log) as handler:
        run.signal_handler = handler
        asyncio.run(_run_mirrored(run, log, mirror))
    assert run.outcome is not None
    return {**run.outcome, "prefect_lost": run.recording.lost}


async def _run_mirrored(run: Run, log: Log, mirror: Mirror | None) -> None:
    """Ensure the Prefect API (nothing has begun: a dead one costs no results file), begin
    the run (its first cases start at once), tell the recorder to open the flow run, run
    the stages, and wait for the recorder to have recorded them."""
    from agentv.flows.prefect.naming import plan_labels, run_name, run_tags
    from agentv.flows.prefect.server import ensure_api
    try:
        async with run:
            ensure_api(log)  # before any case: a dead PREFECT_API_URL is a configuration error
            mirror = mirror or Mirror.for_run(run.plan.options)
            assert mirror is not None
            mirror.hurry = lambda: run.control.stopping
            run.recording = mirror
            run.begin()
            suites, targets, datasets = plan_labels(run.plan)
            mirror.open(run_name(suites, targets), list(run_tags(suites, targets, datasets)),
                        {"options": _flow_options(run.plan)})
            url = os.environ.get("PREFECT_API_URL")
            watch = asyncio.ensure_future(mirror.watch(url)) if url else None
            try:
                await mirror.end(await run_stages(run))
            except BaseException as err:
                mirror.crashed(err)
                raise
            finally:
                if watch is not None:
                    watch.cancel()
    finally:
        if mirror is not None:
            await asyncio.to_thread(mirror.finish)


def _execute_in_flow(run: Run, log: Log) -> dict[str, Any]:
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
    """Ensure the Prefect API, then run the ``agentv-eval`` flow here, watching its API.
    Lost before the flow took the run (the flow run could not be created): the flow's
    function runs without Prefect. Lost after the flow's outcome (its final state could
    not be sent): the outcome stands."""
    from agentv.flows.prefect.server import ensure_api
    async with run:
        ensure_api(log)
        run.begin()
        url = os.environ.get("PREFECT_API_URL")
        watch = asyncio.ensure_future(run.recording.watch(url)) if url else None
        try:
            flow, tags = _prefect_flow(run.plan)
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
