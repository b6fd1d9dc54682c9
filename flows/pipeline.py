"""The eval pipeline as a Prefect flow: plan → preflight → run-cases batches → summarize.

Prefect tasks are coarse (a batch of cases from one file × target; DESIGN.md §8): each
batch runs its cases concurrently under one shared in-process semaphore (``workers``)
and publishes a table artifact listing its cases, so every case is findable in the UI.
Records are written by one writer as each case completes.
"""
from __future__ import annotations

import asyncio
import math
import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from prefect import get_run_logger, task
from prefect.artifacts import acreate_table_artifact
from prefect.cache_policies import NO_CACHE

from flows.artifacts import publish_results
from flows.naming import slug
from flows.outcome import run_info
from flows.jsonflow import json_flow
from flows.distributed import ProcessLocalDict, batch_table, run_on_task_runner
from tasks.expand import Job
from tasks.problems import case_file, evaluator_problems
from tasks.plan import EvalOptions, Plan, build_plan, file_worker_caps
from tasks.run import CaseRunner, RunOptions, TargetRuntime
from tasks.redact import redact
from tasks.runtime import build_runtimes, close_runtimes
from tasks.write import ResultWriter, default_results_path


@dataclass
class RunState:
    """What a run shares between its tasks (kept in-process, never sent to the API)."""

    plan: Plan | None = None
    runtimes: dict[str, TargetRuntime] | None = None
    on_record: Callable[[dict[str, Any]], None] | None = None
    done_keys: set[str] = field(default_factory=set)
    errors: list[dict[str, Any]] = field(default_factory=list)
    writer: ResultWriter | None = None  # opened before the flow (the CLI), else by _prepare
    session: RunSession | None = None  # what the run stage uses, built by _prepare
    batches: list[list[Job]] = field(default_factory=list)
    append: bool = False  # --resume: append to the existing results file
    stop_requested: float | None = None  # monotonic time of the first Ctrl-C / SIGTERM
    stop_signal: int | None = None
    signal_handler: Callable[[int, Any], None] | None = None
    io_error: str | None = None  # the results file could not be written (disk full…)
    in_flight: set[asyncio.Task] = field(default_factory=set)
    skipped: int = 0
    warnings: list[dict[str, Any]] = field(default_factory=list)  # evaluator warnings
    started: float | None = None  # perf_counter when the user started the run
    outcome: dict[str, Any] | None = None  # the flow's result, also when it ends Failed


@dataclass
class RunSession:
    """What running the cases needs, all of it present: built once the plan is loaded and
    the targets preflight-checked."""

    plan: Plan
    runtimes: dict[str, TargetRuntime]
    writer: ResultWriter
    runner: CaseRunner
    semaphore: asyncio.Semaphore
    file_caps: dict[str, asyncio.Semaphore]


def session_of(state: RunState) -> RunSession:
    if state.session is None:
        raise RuntimeError("the run stage started before the run was prepared")
    return state.session


RUNS: dict[str, RunState] = ProcessLocalDict()  # in-process only; pickles empty


def register_run(state: RunState) -> str:
    token = uuid.uuid4().hex
    RUNS[token] = state
    return token


@task(name="load-and-expand", cache_policy=NO_CACHE)
def plan_stage(options: dict[str, Any], token: str) -> int:
    """Load eval files and targets, select targets, expand cases × trials into jobs."""
    state = RUNS[token]
    plan = state.plan = state.plan or build_plan(EvalOptions(**options))
    get_run_logger().info("%d eval file(s), %d job(s), targets: %s, workers: %d",
                          len(plan.suites), len(plan.jobs), ", ".join(plan.targets), plan.workers)
    return len(plan.jobs)


@task(name="preflight-targets", cache_policy=NO_CACHE)
def preflight_stage(token: str) -> list[str]:
    """Build each selected target's provider and check its configuration once."""
    state = RUNS[token]
    if state.plan is None:
        raise RuntimeError("preflight before the plan was loaded")
    runtimes = state.runtimes = state.runtimes or build_runtimes(state.plan)
    return sorted(runtimes)


def batches_of(jobs: list[Job], size: int,
               whole: frozenset[str] = frozenset()) -> list[tuple[str, list[Job]]]:
    """Group jobs by (file, target) in order, then chunk; label each batch for the UI.
    Groups of ``whole`` targets (provider_batching) stay one batch."""
    groups: dict[tuple[str, str], list[Job]] = {}
    for job in jobs:
        groups.setdefault((job.case.file, job.target), []).append(job)
    out = []
    for (file, target), group in groups.items():
        name = file.rsplit("/", 1)[-1]
        step = len(group) if target in whole else size
        chunks = math.ceil(len(group) / step)
        for i in range(chunks):
            out.append((f"{name} × {target} [{i + 1}/{chunks}]", group[i * step:(i + 1) * step]))
    return out


def batch_size(n_jobs: int) -> int:
    return max(10, min(50, math.ceil(n_jobs / 20)))


async def _run_one(state: RunState, job: Job) -> dict[str, Any] | None:
    session = session_of(state)
    async with session.file_caps[job.case.file], session.semaphore:
        if state.stop_requested is not None:
            state.skipped += 1
            return None  # interrupted: schedule nothing new
        task = asyncio.current_task()
        if task is not None:
            state.in_flight.add(task)
        try:
            record = await session.runner.run(job)
        except asyncio.CancelledError:
            state.skipped += 1
            return None  # cancelled after the grace period: not recorded, resumable
        finally:
            if task is not None:
                state.in_flight.discard(task)
    return record_finished(state, record)


def record_finished(state: RunState, record: dict[str, Any]) -> dict[str, Any] | None:
    """Write one record (scrubbed of secrets); returns what was written. A write failure
    stops the run: nothing new starts, the file keeps only whole records (resumable)."""
    if state.io_error is not None:
        state.skipped += 1
        return None
    writer = session_of(state).writer
    try:
        record = writer.write(record)
    except OSError as err:
        state.io_error = f"{writer.path}: cannot write results: {err.strerror or err}"
        state.skipped += 1
        if state.stop_requested is None:
            state.stop_requested = time.monotonic()
        return None
    where = {"eval_id": record["eval_id"], "target": record["target"],
             "file": case_file(record)}
    if record.get("error"):
        state.errors.append({**where, "error": record["error"]})
    for problem in evaluator_problems(record.get("evaluator_results")):
        (state.errors if problem.is_error else state.warnings).append(
            {**where, "evaluator": problem.evaluator, "error": problem.message})
    if state.on_record:
        state.on_record(record)
    return record


@task(name="run-cases", cache_policy=NO_CACHE, task_run_name="run-cases: {label}")
async def run_batch(label: str, token: str, index: int) -> dict[str, Any]:
    """Run a batch of cases concurrently; publish a table of them as an artifact."""
    state = RUNS[token]
    session, jobs = session_of(state), state.batches[index]
    if session.runner.batching(jobs):  # provider_batching: one call answers the whole batch
        async with session.semaphore:
            await session.runner.prefetch(jobs)
    records = [r for r in await asyncio.gather(*(_run_one(state, j) for j in jobs)) if r]
    await acreate_table_artifact(key=slug(f"agentv-batch-{label}"), table=batch_table(records),
                                 description=f"Cases of batch {label}")
    errors = sum(1 for r in records if r.get("error"))
    if errors:
        get_run_logger().warning("%s: %d of %d case(s) failed", label, errors, len(records))
    return {"cases": len(records), "errors": errors}


@task(name="summarize", cache_policy=NO_CACHE)
async def summarize_stage(token: str, wall_s: float) -> dict[str, Any]:
    """Parquet (+ JUnit) from the results file, the pandas summary, the quality gates,
    the run's artifacts."""
    session = session_of(RUNS[token])
    return await publish_results(session.writer.path, session.plan.options, wall_s,
                                 run_info(session.plan), sink=session.writer.sink)


def _pending(plan: Plan, state: RunState) -> list[Job]:
    return [j for j in plan.jobs if j.key not in state.done_keys]


INTERRUPT_GRACE_S = 3.0


def _prepare(state: RunState) -> list[Job]:
    """Open the writer, build the runner and the semaphores (the run's session); return the
    jobs still to run."""
    plan, runtimes = state.plan, state.runtimes
    if plan is None or runtimes is None:
        raise RuntimeError("the run was prepared before its plan and preflight")
    out = plan.options.out or str(default_results_path(plan.options.output_format))
    if state.writer is None:
        state.writer = ResultWriter(out, plan.options.output_format, append=state.append)
    state.writer.begin()
    runner = CaseRunner(runtimes, RunOptions(
        include_trace=plan.options.include_trace, dump_prompts=plan.options.dump_prompts,
        dump_traces=plan.options.dump_traces))
    caps = file_worker_caps([s.path for s in plan.suites], plan.workers)
    state.session = RunSession(plan, runtimes, state.writer, runner,
                               asyncio.Semaphore(plan.workers),
                               {f: asyncio.Semaphore(n) for f, n in caps.items()})
    return _pending(plan, state)


async def _interrupt_watchdog(state: RunState) -> None:
    """After Ctrl-C: in-flight cases get a grace period, then they are cancelled."""
    while state.stop_requested is None:
        await asyncio.sleep(0.1)
    while time.monotonic() - state.stop_requested < INTERRUPT_GRACE_S and state.in_flight:
        await asyncio.sleep(0.05)
    for in_flight in list(state.in_flight):
        in_flight.cancel()


async def _run_all(state: RunState, token: str, jobs: list[Job]) -> None:
    session = session_of(state)
    size = batch_size(len(jobs))
    gate = asyncio.Semaphore(math.ceil(2 * session.plan.workers / size) + 1)
    batching = frozenset(name for name, rt in session.runtimes.items() if rt.batch)
    labelled = batches_of(jobs, size, batching)
    state.batches = [b for _, b in labelled]

    async def gated(label: str, index: int):
        async with gate:
            if state.stop_requested is not None:
                state.skipped += len(state.batches[index])
                return None
            return await run_batch(label, token, index)

    watchdog = asyncio.ensure_future(_interrupt_watchdog(state))
    try:
        if session.plan.options.task_runner == "dask":
            def finished(record: dict[str, Any]) -> None:
                record_finished(state, record)
            await run_on_task_runner(session.plan, asdict(session.plan.options), labelled,
                                     finished)
        else:
            await asyncio.gather(*(gated(label, i) for i, (label, _) in enumerate(labelled)))
    finally:
        watchdog.cancel()
        await close_runtimes(session.runtimes)


@json_flow(name="agentv-eval", log_prints=False, validate_parameters=False)
async def eval_flow(options: dict[str, Any], token: str | None = None) -> dict[str, Any]:
    """Run AgentV eval suites. ``options`` are EvalOptions fields (paths, target, workers…).
    Ends Failed (with the reasons) when a quality gate fails."""
    token = token or register_run(RunState())
    state = RUNS[token]
    started = state.started or time.perf_counter()  # the console's clock
    _arm_signals(state)
    try:
        return await _eval(state, token, options, started)
    except Exception as err:  # the flow run's state message never carries a secret
        if redact(str(err)) != str(err):
            raise RuntimeError(redact(f"{type(err).__name__}: {err}")) from None
        raise


def _arm_signals(state: RunState) -> None:
    """Prefect's flow engine installs its own SIGTERM bridge (a traceback, no summary):
    SIGTERM gets agentv's graceful stop instead, as Ctrl-C does."""
    if state.signal_handler is None:
        return
    import signal
    try:
        signal.signal(signal.SIGTERM, state.signal_handler)
    except ValueError:  # not the main thread
        pass


async def _eval(state: RunState, token: str, options: dict[str, Any], started: float):
    plan_stage(options, token)
    preflight_stage(token)
    await _run_all(state, token, _prepare(state))
    wall = time.perf_counter() - started  # the same clock as the console's wall time
    summary = await summarize_stage(token, wall)
    from prefect.runtime import flow_run
    state.outcome = {
        "summary": summary, "results": str(session_of(state).writer.path),
        "errors": state.errors,
        "warnings": state.warnings, "wall_s": wall, "flow_run_id": str(flow_run.id),
        "flow_run_url": _ui_url(), "interrupted": state.stop_requested is not None,
        "not_run": state.skipped, "signal": state.stop_signal, "io_error": state.io_error,
        "gate_failures": summary.get("gate_failures") or []}
    if state.outcome["gate_failures"]:
        from prefect.states import Failed
        return Failed(message="quality gate failed: "
                              + "; ".join(state.outcome["gate_failures"]))
    return state.outcome


def _ui_url() -> str | None:
    from prefect.runtime import flow_run
    try:
        return flow_run.ui_url
    except Exception:  # noqa: BLE001 - a missing UI URL is cosmetic
        return None
