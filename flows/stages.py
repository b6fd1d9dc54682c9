"""A run's stages, in order: load-and-expand → preflight-targets → run-cases batches →
summarize, each a ``Stage`` (a task run in Prefect) the run's recording runs, and the run's
final state. No Prefect here: the ``agentv-eval`` flow (flows/pipeline.py) runs them inside
its flow run; the ``agentv`` command runs them in its own process while the recorder
process mirrors them to Prefect (flows/prefect/mirror.py).

Task runs are coarse by default (``--prefect-tasks batch``: a batch of cases from one
file × target; DESIGN.md §8): each batch runs its cases concurrently through the run's job
runner and publishes a table artifact listing its cases, so every case is findable in the
UI. ``--prefect-tasks case`` runs each case as its own task runs (flows/runners/case_tasks.py);
``--task-runner dask`` runs the batches on a Dask cluster (flows/runners/distributed.py).
Records are written by the one writer as each case completes.
"""
from __future__ import annotations

import asyncio
import math
import time
from typing import Any, Callable, Sequence

from agentv.flows.artifacts.batches import batch_artifact
from agentv.flows.artifacts.case_pages import CasePages
from agentv.flows.artifacts.outcome import run_info
from agentv.flows.artifacts.publish import case_pages, publish_results
from agentv.flows.prefect.stage import Final, stage
from agentv.flows.run import Run
from agentv.tasks.engine.runtime import throttling
from agentv.tasks.plan.batching import Batch, batch_size, run_batches
from agentv.tasks.plan.expand import Job


@stage("run-cases", "run-cases: {label}")
async def run_batch(label: str, run: Run, jobs: Sequence[Job]) -> dict[str, Any]:
    """Run a batch of cases concurrently (but those that began already: run again outside
    Prefect after the API was lost); publish a table of them as an artifact."""
    records = await run.jobs.run_batch(run.jobs.not_begun(jobs))
    await run.recording.send(batch_artifact(label, records))
    errors = sum(1 for r in records if r.get("error"))
    if errors:
        run.recording.logger().warning("%s: %d of %d case(s) failed", label, errors,
                                       len(records))
    return {"cases": len(records), "errors": errors}


@stage("summarize")
async def summarize_stage(run: Run, wall_s: float,
                          pages: CasePages | None = None) -> dict[str, Any]:
    """The Parquet file closed (+ JUnit), the streamed summary, the quality gates,
    the run's artifacts."""
    info = run_info(run.plan, run.ledger, getattr(run.jobs, "budget", None))
    info.notes.extend(throttling(run.runtimes))  # "openai-prod throttled: window 8→2, …"
    info.io_error = run.control.io_error
    return await publish_results(run.writer.path, run.plan.options, wall_s, info,
                                 sink=run.writer.sink, pages=pages,
                                 recording=run.recording)


@stage("load-and-expand")
async def plan_stage(run: Run) -> int:
    """The eval files loaded, targets selected, cases × trials expanded into jobs (by the
    run's factory, before the flow: this task shows it in the flow run)."""
    plan = run.plan
    run.recording.logger().info("%d eval file(s), %d job(s), targets: %s, workers: %d",
                                len(plan.suites), len(plan.jobs), ", ".join(plan.targets),
                                plan.workers)
    return len(plan.jobs)


@stage("preflight-targets")
async def preflight_stage(run: Run) -> list[str]:
    """Each selected target's provider built and its configuration checked once (by the
    run's factory, before the flow: this task shows it in the flow run)."""
    return sorted(run.runtimes)


async def _run_batches(run: Run, labelled: list[Batch]) -> None:
    """Batch tasks, enough at once that ``--workers`` stays busy while each admitted batch
    waits for its slowest case (with long-tailed latencies, 2× starved the pool). Cases a
    head start began are adopted by their batch (still run, still recorded when stopping)."""
    size = batch_size(sum(len(jobs) for _, jobs in labelled))
    gate = asyncio.Semaphore(math.ceil(4 * run.plan.workers / size) + 1)
    run.hand_over()

    async def gated(label: str, jobs: Sequence[Job]) -> None:
        async with gate:
            if run.control.stopping and not run.jobs.holds(jobs):
                run.control.skipped += len(jobs)
                return
            await run.recording.call(run_batch, label, run, jobs)

    await asyncio.gather(*(gated(label, jobs) for label, jobs in labelled))


async def run_cases(run: Run, remote: Callable[[Sequence[Job]], Any] | None) -> None:
    """Every pending job through the job runner: batch tasks here, case tasks here, or
    batch tasks on the Dask cluster."""
    head = run.head
    labelled = head.batches if head is not None else run_batches(run.pending(),
                                                                  run.runtimes)
    opts = run.plan.options
    if opts.task_runner == "dask":
        from agentv.flows.runners.distributed import plan_parts, run_on_dask
        await run_on_dask(run, labelled, remote or await plan_parts(run))
    elif opts.prefect_tasks == "case":
        from agentv.flows.runners.case_tasks import CaseTasks
        run.jobs.execute = CaseTasks(run, any(j.trial for j in run.plan.jobs))
        await asyncio.gather(*(run.jobs.run_batch(jobs) for _, jobs in labelled))
    else:
        await _run_batches(run, labelled)


async def run_stages(run: Run) -> Final:
    """The run, stage by stage, recorded by its recording; how its flow run ends."""
    from agentv.flows.artifacts.view_link import publish_view_link
    from agentv.tasks.results.run_meta import run_metadata
    recording = run.recording
    run.opened = True  # from now on the flow run records the run
    run.arm_signals()
    await publish_view_link(run.writer.path, run.plan, recording)  # the first artifact
    await recording.call(plan_stage, run)
    await recording.call(preflight_stage, run)
    started = run.started or time.perf_counter()  # the console's clock
    pages = case_pages(run.writer.sink, recording)  # published as cases run
    try:
        await run_cases(run, run.remote)
    finally:
        if pages is not None:
            pages.stop()
        await run.close_registered()  # the task runner's resources, while it is up
    wall = time.perf_counter() - started  # the same clock as the console's wall time
    run_id, run_url = await recording.ids()
    if run.writer.sink is not None:  # the report links each run to its flow run
        run.writer.sink.describe(run_metadata(run_id, run_url))
    summary = await recording.call(summarize_stage, run, wall, pages)
    outcome = run.finish(summary, wall, run.control.skipped, run_id, run_url)
    return final_state(summary, outcome)


def final_state(summary: dict[str, Any], outcome: dict[str, Any]) -> Final:
    """The flow run's state tells the truth: its message carries the counts
    ("12 pass · 3 fail · 1 error · mean 0.810"); a failed gate makes it Failed; failed or
    errored cases without a gate name it "Completed with failures" and tag the run
    ``has-failures``."""
    counts = summary.get("counts") or ""
    tags = ("has-failures",) if summary.get("failures") else ()
    if gates := outcome["gate_failures"]:
        return Final(True, "quality gate failed: " + "; ".join(gates)
                     + (f" ({counts})" if counts else ""), tags=tags, outcome=outcome)
    if summary.get("failures"):
        return Final(False, counts, "Completed with failures", tags, outcome)
    return Final(False, counts, outcome=outcome)
