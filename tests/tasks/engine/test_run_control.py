"""The one job runner's stop control, as the flow and the typed API's EvalLoop use it: with
a grace period the watchdog cancels what still runs after a stop; with ``grace_s=None``
in-flight jobs finish however long they take until ``release()`` cancels them; a job that
gets its slot after a stop is skipped."""
from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, cast

from agentv.tasks.engine.case_runner import CaseRunner, RunOptions
from agentv.tasks.engine.jobs import JobRunner, LocalLimits, RunControl
from agentv.tasks.plan.expand import Job


def job(name: str) -> Job:
    return cast(Job, SimpleNamespace(key=name, case=SimpleNamespace(file=None), begun_by=None))


async def _stop_while_running(control: RunControl, then: Any = None) -> list[Any]:
    started = asyncio.Event()

    async def execute(j: Any) -> dict[str, Any]:
        started.set()
        await asyncio.sleep(0.4)
        return {"eval_id": j.key}
    runner = JobRunner(cast(CaseRunner, None), LocalLimits(1, {}), control, execute=execute)
    watchdog = asyncio.ensure_future(control.watchdog())
    try:
        running = asyncio.ensure_future(runner.run_one(job("a")))
        waiting = asyncio.ensure_future(runner.run_one(job("b")))  # waits for the one slot
        await started.wait()
        control.request_stop()
        if then is not None:
            await asyncio.sleep(0.15)
            then()
        return list(await asyncio.gather(running, waiting))
    finally:
        watchdog.cancel()


def test_a_grace_period_cancels_what_still_runs():
    control = RunControl(grace_s=0.05)
    assert asyncio.run(_stop_while_running(control)) == [None, None]
    assert control.skipped == 2 and not control.released


def test_no_deadline_lets_the_job_in_flight_finish_and_skips_the_next():
    control = RunControl(grace_s=None)
    assert asyncio.run(_stop_while_running(control)) == [{"eval_id": "a"}, None]
    assert control.skipped == 1 and not control.in_flight


def test_release_cancels_the_job_in_flight_now():
    control = RunControl(grace_s=None)
    done = asyncio.run(_stop_while_running(control, then=control.release))
    assert done == [None, None] and control.released and control.skipped == 2


def test_run_jobs_answers_in_job_order_and_adopts_what_a_head_start_began():
    control = RunControl(grace_s=None)
    calls: list[str] = []

    async def execute(j: Any) -> dict[str, Any]:
        calls.append(j.key)
        control.request_stop()  # the first job to run stops the run
        await asyncio.sleep(0.05)
        return {"eval_id": j.key}
    cases = cast(CaseRunner, SimpleNamespace(batching=lambda jobs: False))
    runner = JobRunner(cases, LocalLimits(1, {}), control, execute=execute)

    async def run() -> list[Any]:
        runner.start(job("b"))  # a head start began "b": it holds the one slot first
        return await runner.run_jobs([job("a"), job("b"), job("c")])
    assert asyncio.run(run()) == [None, {"eval_id": "b"}, None]
    assert calls == ["b"] and control.skipped == 2 and not runner.started


def test_one_entry_builds_every_job_runner():
    runtimes: dict[str, Any] = {}
    control = RunControl()
    runner = JobRunner.for_targets(runtimes, RunOptions(include_trace=True),
                                   LocalLimits(2, {}), control)
    assert runner.runner.targets is runtimes and runner.runner.options.include_trace
    assert runner.control is control and runner.execute == runner.runner.run


def test_a_batch_run_again_runs_no_case_twice_but_adopts_a_head_start():
    """A batch run again outside Prefect (its task failed around it): what began is not
    started again; what a head start began is still adopted; a cancelled job may run."""
    calls: list[str] = []

    async def execute(j: Any) -> dict[str, Any]:
        calls.append(j.key)
        if j.key == "d":
            await asyncio.sleep(60)
        return {"eval_id": j.key}
    cases = cast(CaseRunner, SimpleNamespace(batching=lambda jobs: False))
    runner = JobRunner(cases, LocalLimits(4, {}), RunControl(grace_s=None), execute=execute)
    runner.marks_begun = True
    batch = [job("a"), job("b"), job("c"), job("d")]

    async def run() -> list[str]:
        await runner.run_jobs(batch[:2])  # "a", "b" ran
        cancelled = asyncio.ensure_future(runner.run_one(batch[3]))
        await asyncio.sleep(0.05)
        cancelled.cancel()  # "d" cut short: not recorded, not begun
        await asyncio.gather(cancelled, return_exceptions=True)
        runner.start(batch[2])  # a head start began "c"
        return [j.key for j in runner.not_begun(batch)]
    assert asyncio.run(run()) == ["c", "d"]
    assert calls[:3] == ["a", "b", "d"]
