"""Case batches on a Prefect task runner that runs elsewhere (Dask through prefect-dask).

A remote worker shares nothing with the flow's process, so each batch task gets the run's
options and the indices of its jobs, rebuilds the plan in its own process (cached per
process), runs the cases under its own ``--workers`` semaphore and returns the records.
The flow process stays the one writer: it writes each batch's records as the batch
completes. Eval files, targets and .env must be readable at the same paths on the
workers (one checkout per machine; paths are sent absolute).
"""
from __future__ import annotations

import asyncio
import json
import os
from typing import Any, Callable

from prefect import task
from prefect.artifacts import acreate_table_artifact
from prefect.cache_policies import NO_CACHE

from tasks.expand import Job
from tasks.plan import EvalOptions, Plan, build_plan
from tasks.redact import redact_obj
from tasks.run import CaseRunner, RunOptions
from tasks.runtime import build_runtimes, close_runtimes



class ProcessLocalDict(dict):
    """A registry that never travels: pickled (e.g. inside a flow sent to Dask with the
    run context) it arrives empty, so open files and sessions stay in their process."""

    def __reduce__(self):
        return (type(self), ())


_PLANS: dict[str, Plan] = ProcessLocalDict()


def remote_options(options: dict[str, Any]) -> dict[str, Any]:
    """Options a worker can use from any directory: paths made absolute."""
    out = dict(options)
    out["paths"] = [os.path.abspath(p) for p in options.get("paths", [])]
    if out.get("targets"):
        out["targets"] = os.path.abspath(out["targets"])
    for key in ("resume", "junit", "task_runner", "dask_address", "out"):
        out.pop(key, None)
    return out


def worker_plan(options: dict[str, Any]) -> Plan:
    key = json.dumps(options, sort_keys=True, default=str)
    if key not in _PLANS:
        _PLANS[key] = build_plan(EvalOptions(**options))
    return _PLANS[key]


def batch_table(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of a batch's table artifact: one per case."""
    return [{"eval_id": r["eval_id"], "target": r["target"], "trial": r.get("trial", 0),
             "score": r["score"], "attempt": r.get("attempt"),
             "latency_ms": r.get("latency_ms"), "error": r.get("error") or ""}
            for r in records]


async def _run_jobs(plan: Plan, jobs: list[Job]) -> list[dict[str, Any]]:
    runtimes = build_runtimes(plan)
    opts = plan.options
    runner = CaseRunner(runtimes, RunOptions(include_trace=opts.include_trace,
                                             dump_prompts=opts.dump_prompts,
                                             dump_traces=opts.dump_traces))
    semaphore = asyncio.Semaphore(plan.workers)
    if runner.batching(jobs):  # provider_batching: one call answers the whole batch
        async with semaphore:
            await runner.prefetch(jobs)

    async def one(job: Job) -> dict[str, Any]:
        async with semaphore:
            return await runner.run(job)

    try:
        return list(await asyncio.gather(*(one(j) for j in jobs)))
    finally:
        await close_runtimes(runtimes)


@task(name="run-cases", cache_policy=NO_CACHE, task_run_name="run-cases: {label}")
async def run_remote_batch(label: str, options: dict[str, Any],
                           indices: list[int]) -> list[dict[str, Any]]:
    """Run the plan's jobs at ``indices`` on this worker; publish their table artifact."""
    plan = worker_plan(options)
    records = redact_obj(await _run_jobs(plan, [plan.jobs[i] for i in indices]))
    from flows.naming import slug
    await acreate_table_artifact(key=slug(f"agentv-batch-{label}"), table=batch_table(records),
                                 description=f"Cases of batch {label}")
    return records


async def run_on_task_runner(plan: Plan, options: dict[str, Any],
                             labelled: list[tuple[str, list[Job]]],
                             on_record: Callable[[dict[str, Any]], None]) -> None:
    """Submit every batch to the flow's task runner; hand records over as batches finish."""
    position = {id(job): i for i, job in enumerate(plan.jobs)}
    sent = remote_options(options)
    futures = [(jobs, run_remote_batch.submit(label, sent, [position[id(j)] for j in jobs]))
               for label, jobs in labelled]

    async def collect(jobs: list[Job], future) -> None:
        records = await asyncio.to_thread(future.result)
        for job, record in zip(jobs, records):
            record["case_key"] = job.key  # the flow's key, whatever the worker's directory
            on_record(record)

    await asyncio.gather(*(collect(jobs, f) for jobs, f in futures))
