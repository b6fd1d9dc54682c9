"""The eval pipeline as a Prefect flow: load-and-expand → preflight-targets → run-cases
batches → summarize, all inside one ``Run`` (flows/run.py) that the flow opens
and closes.

Prefect tasks are coarse by default (``--prefect-tasks batch``: a batch of cases from one
file × target; DESIGN.md §8): each batch runs its cases concurrently through the run's job
runner and publishes a table artifact listing its cases, so every case is findable in the
UI. ``--prefect-tasks case`` runs each case as its own task runs (flows/runners/case_tasks.py);
``--task-runner dask`` runs the batches on a Dask cluster (flows/runners/distributed.py). Records
are written by the one writer as each case completes.
"""
from __future__ import annotations

import asyncio
import math
import time
from typing import Any, Callable, Sequence

from prefect import task
from prefect.cache_policies import NO_CACHE

from agentv.flows.artifacts.batches import publish_batch_table
from agentv.flows.artifacts.case_details import flow_run_ui_url
from agentv.flows.artifacts.case_pages import CasePages
from agentv.flows.artifacts.outcome import run_info
from agentv.flows.artifacts.publish import case_pages, publish_results
from agentv.flows.prefect.jsonflow import json_flow
from agentv.flows.prefect.recording import run_logger
from agentv.flows.prefect.scrubbed import PERSIST, scrub_errors
from agentv.flows.run import Run, as_is
from agentv.flows.runners.case_tasks import CaseTasks
from agentv.tasks.engine.runtime import throttling
from agentv.tasks.plan.batching import Batch, batch_size, run_batches
from agentv.tasks.plan.expand import Job

__all__ = ["eval_flow"]


@task(name="run-cases", cache_policy=NO_CACHE, persist_result=PERSIST,
      task_run_name="run-cases: {label}")
@scrub_errors
async def run_batch(label: str, run: Run, jobs: Sequence[Job]) -> dict[str, Any]:
    """Run a batch of cases concurrently (but those that began already: run again outside
    Prefect after the API was lost); publish a table of them as an artifact."""
    records = await run.jobs.run_batch(run.jobs.not_begun(jobs))
    await run.recording.publish(lambda: publish_batch_table(label, records))
    errors = sum(1 for r in records if r.get("error"))
    if errors:
        run_logger().warning("%s: %d of %d case(s) failed", label, errors, len(records))
    return {"cases": len(records), "errors": errors}


@task(name="summarize", cache_policy=NO_CACHE, persist_result=PERSIST)
@scrub_errors
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
            await run.recording.call(run_batch, label, run, as_is(jobs))

    await asyncio.gather(*(gated(label, jobs) for label, jobs in labelled))


async def _run_case_tasks(run: Run, labelled: list[Batch]) -> None:
    run.jobs.execute = CaseTasks(run, any(j.trial for j in run.plan.jobs))
    await asyncio.gather(*(run.jobs.run_batch(jobs) for _, jobs in labelled))


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
        await _run_case_tasks(run, labelled)
    else:
        await _run_batches(run, labelled)


@task(name="load-and-expand", cache_policy=NO_CACHE, persist_result=PERSIST)
@scrub_errors
async def plan_stage(run: Run) -> int:
    """The eval files loaded, targets selected, cases × trials expanded into jobs (by the
    run's factory, before the flow: this task shows it in the flow run)."""
    plan = run.plan
    run_logger().info("%d eval file(s), %d job(s), targets: %s, workers: %d",
                      len(plan.suites), len(plan.jobs), ", ".join(plan.targets), plan.workers)
    return len(plan.jobs)


@task(name="preflight-targets", cache_policy=NO_CACHE, persist_result=PERSIST)
@scrub_errors
async def preflight_stage(run: Run) -> list[str]:
    """Each selected target's provider built and its configuration checked once (by the
    run's factory, before the flow: this task shows it in the flow run)."""
    return sorted(run.runtimes)


@json_flow(name="agentv-eval", log_prints=False, validate_parameters=False,
           persist_result=PERSIST)
@scrub_errors  # the flow run's state message never carries a secret
async def eval_flow(options: dict[str, Any], run: Run | None = None) -> dict[str, Any]:
    """Run AgentV eval suites. ``options`` are EvalOptions fields (paths, target, workers…);
    ``run`` the ``Run`` its launcher opened (never serialized). Started with options alone
    (from the Prefect UI or a deployment), the flow opens the run itself. Ends Failed (with
    the reasons) when a quality gate fails."""
    if run is not None:
        return await _eval(run)
    from agentv.flows.opening import open_run
    from agentv.tasks.plan.plan import EvalOptions
    async with open_run(EvalOptions(**options)) as opened:
        opened.begin()
        return await _eval(opened)


async def _eval(run: Run) -> Any:
    from prefect.runtime import flow_run

    from agentv.flows.artifacts.view_link import publish_view_link
    from agentv.tasks.results.run_meta import run_metadata
    run.opened = True  # from now on the flow run records the run
    run.arm_signals()
    await publish_view_link(run.writer.path, run.plan, run.recording)  # the first artifact
    await run.recording.call(plan_stage, run)
    await run.recording.call(preflight_stage, run)
    started = run.started or time.perf_counter()  # the console's clock
    if run.writer.sink is not None:  # the report links each run to its flow run
        run.writer.sink.describe(run_metadata(str(flow_run.id) if flow_run.id else None,
                                              flow_run_ui_url()))
    pages = case_pages(run.writer.sink, run.recording)  # published as cases run
    try:
        await run_cases(run, run.remote)
    finally:
        if pages is not None:
            pages.stop()
        await run.close_registered()  # the task runner's resources, while it is up
    wall = time.perf_counter() - started  # the same clock as the console's wall time
    summary = await run.recording.call(summarize_stage, run, wall, as_is(pages))
    outcome = run.finish(summary, wall, run.control.skipped,
                         str(flow_run.id) if flow_run.id else None, flow_run_ui_url())
    return await _final_state(summary, outcome["gate_failures"], outcome)


async def _final_state(summary: dict[str, Any], gate_failures: list[str],
                       outcome: dict[str, Any]) -> Any:
    """The flow run's state tells the truth: its message carries the counts
    ("12 pass · 3 fail · 1 error · mean 0.810"); a failed gate makes it Failed; failed or
    errored cases without a gate name it "Completed with failures" and tag the run
    ``has-failures``."""
    from prefect.states import Completed, Failed
    counts = summary.get("counts") or ""
    if summary.get("failures"):
        await _tag_run("has-failures")
    if gate_failures:
        return Failed(message="quality gate failed: " + "; ".join(gate_failures)
                      + (f" ({counts})" if counts else ""))
    if summary.get("failures"):
        return Completed(name="Completed with failures", message=counts, data=outcome)
    return Completed(message=counts, data=outcome)


async def _tag_run(tag: str) -> None:
    from prefect.client.orchestration import get_client
    from prefect.runtime import flow_run
    try:
        async with get_client() as client:
            await client.update_flow_run(flow_run.id, tags=sorted({*flow_run.tags, tag}))
    except Exception as err:  # noqa: BLE001 - a missing tag is cosmetic; the state says it
        run_logger().warning("could not tag the flow run %s: %s", tag, err)
