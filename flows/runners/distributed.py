"""Case batches on the Dask task runner (prefect-dask), through the one job runner.

The flow process stays the one writer: each batch task runs on a worker and returns its
records, written as the batch completes. The whole run shares cluster-wide limits: a
``distributed.Semaphore`` of ``--workers`` leases and one per eval file (its cap), named
after the run, so ``--workers`` bounds the run however many batches run at once. A stop
(Ctrl-C, SIGTERM, a failed write) sets a ``distributed.Event``: workers start nothing new
and cancel what still runs after the same grace period.

A worker rebuilds its jobs and runtimes itself (``RemoteJobs``): an eval run from its
options (eval files, targets and .env at the same absolute paths on the workers; secrets
resolved from the worker's environment, never shipped; the plan built once per worker and
run, held by the run's worker plugin: flows/runners/worker_plans.py), a typed-API run from its cases
as shipped.
"""
from __future__ import annotations

import asyncio
import json
import os
import uuid
from dataclasses import asdict
from typing import Any, Callable, Protocol, Sequence

from prefect import task
from prefect.cache_policies import NO_CACHE

from agentv.flows.artifacts.batches import batch_artifact
from agentv.flows.prefect.artifact_api import create_artifact
from agentv.flows.prefect.scrubbed import PERSIST, scrub_errors
from agentv.flows.prefect.shared_limits import prefect_pools
from agentv.flows.run import Run
from agentv.flows.runners.dask_limits import DaskLimits
from agentv.providers import secrets
from agentv.tasks.engine.case_runner import RunOptions, TargetRuntime
from agentv.tasks.engine.jobs import JobRunner, RunControl
from agentv.tasks.engine.runtime import build_runtimes, close_runtimes
from agentv.tasks.load.redact import redact_obj
from agentv.tasks.plan.expand import Job
from agentv.tasks.plan.options import MAX_WORKERS

STOP_POLL_S = 0.25

__all__ = ["run_on_dask"]


class RemoteJobs(Protocol):
    """What a worker needs to run one batch: its jobs and the runtimes they use."""

    def load(self) -> tuple[list[Job], dict[str, TargetRuntime]]: ...


class PlanPart:
    """Jobs of an eval run by their position in the plan the worker rebuilds (once per run:
    held by the run's worker plugin ``plans``, flows/runners/worker_plans.py)."""

    def __init__(self, options: dict[str, Any], positions: list[int], plans: str):
        self.options, self.positions, self.plans = options, positions, plans

    def load(self) -> tuple[list[Job], dict[str, TargetRuntime]]:
        from agentv.flows.runners.worker_plans import worker_plan
        options = json.dumps(self.options, sort_keys=True, default=str)
        plan, found = worker_plan(self.plans, options)
        secrets.active().merge(found)  # the batch's records and errors scrub with them
        return [plan.jobs[i] for i in self.positions], build_runtimes(plan, prefect_pools())


def remote_options(options: dict[str, Any]) -> dict[str, Any]:
    """Options a worker can use from any directory: paths made absolute."""
    out = dict(options)
    out["paths"] = [os.path.abspath(p) for p in options.get("paths", [])]
    if out.get("targets"):
        out["targets"] = os.path.abspath(out["targets"])
    for key in ("resume", "rerun_failed", "retry_errors", "junit", "task_runner",
                "dask_address", "out", "prefect_tasks"):
        out.pop(key, None)
    if out.get("workers"):  # the cluster's semaphore bounds the run; a batch takes at most
        out["workers"] = min(out["workers"], MAX_WORKERS)  # a local run's concurrency
    return out


async def _follow_stop(event: Any, control: RunControl) -> None:
    """Worker side: the run's stop event becomes this batch's stop."""
    while not control.stopping:
        if await asyncio.to_thread(event.is_set):
            control.request_stop()
            return
        await asyncio.sleep(STOP_POLL_S)


@task(name="run-cases", cache_policy=NO_CACHE, persist_result=PERSIST,
      task_run_name="run-cases: {label}")
@scrub_errors
async def run_remote_batch(label: str, part: RemoteJobs, limits: DaskLimits,
                           options: RunOptions, grace_s: float | None) -> dict[str, Any]:
    """Run one batch on this worker under the run's cluster-wide limits; publish its
    table artifact; return its records (None for a job not run) and how many were not run."""
    from distributed import Event, get_client
    client = get_client()  # the worker's client (this is the worker's task thread)
    limits.bind(client)
    jobs, runtimes = part.load()
    control = RunControl(grace_s)
    runner = JobRunner.for_targets(runtimes, options, limits, control)
    follower = asyncio.ensure_future(_follow_stop(Event(limits.stop_event, client), control))
    watchdog = asyncio.ensure_future(control.watchdog())
    try:
        records = await runner.run_jobs(jobs)
    finally:
        follower.cancel()
        watchdog.cancel()
        await close_runtimes(runtimes)
        await limits.unbind()
    records = redact_obj(records)
    await create_artifact(batch_artifact(label, [r for r in records if r]))
    return {"records": records, "skipped": control.skipped}


def _task_runner_client() -> Any:
    from prefect.context import FlowRunContext
    context = FlowRunContext.get()
    if context is None:
        raise RuntimeError("the Dask batches run inside the agentv-eval flow")
    return context.task_runner.client  # type: ignore[attr-defined]


async def _signal_stop(control: RunControl, event: Any) -> None:
    while not control.stopping:
        await asyncio.sleep(0.1)
    await asyncio.to_thread(event.set)


async def run_on_dask(run: Run, labelled: Sequence[tuple[str, Sequence[Job]]],
                      remote: Callable[[Sequence[Job]], RemoteJobs]) -> None:
    """Submit every batch to the Dask task runner; write records as batches finish."""
    from distributed import Event
    client = _task_runner_client()
    limits = DaskLimits(uuid.uuid4().hex, run.plan.workers, run.file_caps())
    event = Event(limits.stop_event, client)
    run.on_close(lambda: asyncio.to_thread(_close_cluster_state, client, limits, event))
    opts = run.runner.options
    # plain objects (not dataclasses): Prefect passes them without walking into them
    futures = [(jobs, run_remote_batch.submit(label, remote(jobs), limits, opts,
                                              run.control.grace_s))
               for label, jobs in labelled]
    stopper = asyncio.ensure_future(_signal_stop(run.control, event))

    async def collect(jobs: Sequence[Job], future: Any) -> None:
        done = await asyncio.to_thread(future.result)
        run.control.skipped += done["skipped"]
        for job, record in zip(jobs, done["records"]):
            if record is not None:
                record["case_key"] = job.key  # the flow's key, whatever the worker's directory
                run.record_finished(record)

    try:
        await asyncio.gather(*(collect(jobs, f) for jobs, f in futures))
    finally:
        stopper.cancel()


def _close_cluster_state(client: Any, limits: DaskLimits, event: Any) -> None:
    """The run's semaphores and stop event leave the scheduler with the run."""
    for name, _ in limits.semaphore_names().values():
        try:
            client.sync(client.scheduler.semaphore_close, name=name)
        except Exception:  # noqa: BLE001 - never registered (no batch ran): nothing to close
            pass
    try:
        event.clear()
    except Exception:  # noqa: BLE001 - the cluster is gone already
        pass


async def plan_parts(run: Run) -> Callable[[Sequence[Job]], RemoteJobs]:
    """An eval run's batches by position in the plan (jobs keyed by their case key); the
    workers hold the run's plans until the run closes."""
    from agentv.flows.runners.worker_plans import register_plans, unregister_plans
    client = _task_runner_client()
    plans = await asyncio.to_thread(register_plans, client)
    run.on_close(lambda: asyncio.to_thread(unregister_plans, client, plans))
    position = {job.key: i for i, job in enumerate(run.plan.jobs)}
    options = remote_options(asdict(run.plan.options))
    return lambda jobs: PlanPart(options, [position[job.key] for job in jobs], plans)


class ShippedJobs:
    """A typed-API batch: its jobs as they are, and how to build their runtimes."""

    def __init__(self, jobs: Sequence[Job], build: Callable[[], dict[str, TargetRuntime]]):
        self.jobs, self.build = list(jobs), build  # the jobs themselves travel

    def load(self) -> tuple[list[Job], dict[str, TargetRuntime]]:
        return self.jobs, self.build()
