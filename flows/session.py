"""``RunSession``: one run's resources, opened inside the ``agentv-eval`` flow and closed when
it ends — the plan, the results writer, every target runtime (judges included), the
concurrency limits, the interrupt control and the job runner.

What a launcher prepared in this process (a plan already validated, runtimes already
preflight-checked, the locked writer, the console's ``on_record``, the signal handler) is
handed over as a ``Launch`` in a context variable for the duration of the flow call
(``launching``): the flow's parameters stay JSON, nothing outlives the call, and there is no
registry of runs. Without a launch (a deployment starting the flow) the session builds all
of it from the options.
"""
from __future__ import annotations

import asyncio
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, TypeVar, cast

from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE
from prefect.utilities.annotations import quote

from flows.scrubbed import PERSIST, scrub_errors
from tasks.expand import Job
from tasks.jobs import JobRunner, Limits, LocalLimits, Record, RunControl
from tasks.plan import EvalOptions, Plan, build_plan, file_worker_caps
from tasks.problems import case_file, evaluator_problems
from tasks.resume import Finished
from tasks.run import CaseRunner, RunOptions, TargetRuntime
from tasks.runtime import build_runtimes, close_runtimes
from tasks.write import ResultWriter, default_results_path


@dataclass
class Launch:
    """What a launcher hands to the flow it starts in this process (never sent anywhere)."""

    plan: Plan | None = None
    runtimes: dict[str, TargetRuntime] | None = None
    writer: ResultWriter | None = None  # opened (locked) before the flow
    finished: Finished | None = None  # --resume: the records already in the file
    on_record: Callable[[Record], None] | None = None
    started: float | None = None  # perf_counter when the user started the run
    control: RunControl = field(default_factory=RunControl)  # the signal handler stops it
    signal_handler: Callable[[int, Any], None] | None = None
    outcome: dict[str, Any] | None = None  # the flow's result, also when it ends Failed
    # --task-runner dask: how a worker gets a batch's jobs and runtimes (default: it
    # rebuilds the plan from the options; the typed API ships its cases)
    remote: Callable[[list[Job]], Any] | None = None

    def release(self) -> None:
        """The call is over: let go of the run (the outcome stays)."""
        self.plan = self.runtimes = self.writer = self.finished = None
        self.on_record = self.signal_handler = self.remote = None


T = TypeVar("T")


def as_is(value: T) -> T:
    """A task argument Prefect hands over untouched: it does not walk into it looking for
    futures (a plan holds thousands of cases; a session holds open resources)."""
    return cast(T, quote(value))


# A one-slot box, emptied when the call ends: Prefect's background threads and tasks copy
# the context they start in, and must not keep a run alive through it.
_LAUNCH: ContextVar[list[Launch]] = ContextVar("agentv_launch", default=[])


@contextmanager
def launching(launch: Launch) -> Iterator[Launch]:
    """Hand ``launch`` to the ``agentv-eval`` flow called inside this block."""
    slot = [launch]
    token = _LAUNCH.set(slot)
    try:
        yield launch
    finally:
        slot.clear()
        _LAUNCH.reset(token)


def current_launch() -> Launch:
    """The launch of the flow being started here, or an empty one (a deployment's run)."""
    slot = _LAUNCH.get()
    return slot[0] if slot else Launch()


@task(name="load-and-expand", cache_policy=NO_CACHE, persist_result=PERSIST)
@scrub_errors
async def plan_stage(session: RunSession) -> int:
    """Load eval files and targets, select targets, expand cases × trials into jobs (done
    already when the launcher validated the run before the flow)."""
    plan = session.plan = session.launch.plan or build_plan(EvalOptions(**session.options))
    get_run_logger().info("%d eval file(s), %d job(s), targets: %s, workers: %d",
                          len(plan.suites), len(plan.jobs), ", ".join(plan.targets), plan.workers)
    return len(plan.jobs)


@task(name="preflight-targets", cache_policy=NO_CACHE, persist_result=PERSIST)
@scrub_errors
async def preflight_stage(session: RunSession) -> list[str]:
    """Build each selected target's provider and check its configuration once (done
    already when the launcher preflight-checked the targets)."""
    runtimes = session.runtimes = session.launch.runtimes or build_runtimes(session.plan)
    return sorted(runtimes)


class RunSession:
    """``async with RunSession(options, launch) as session``: everything a run holds, closed
    on exit (runtimes, the writer, cluster-wide limits) whatever happened."""

    plan: Plan  # set by the load-and-expand stage
    runtimes: dict[str, TargetRuntime]  # set by the preflight-targets stage

    def __init__(self, options: dict[str, Any], launch: Launch):
        self.options, self.launch, self.control = options, launch, launch.control
        self.errors: list[dict[str, Any]] = []
        self.warnings: list[dict[str, Any]] = []
        self.done_keys: set[str] = set()
        self._closers: list[Callable[[], Any]] = []
        self._watchdog: asyncio.Future | None = None
        if launch.finished is not None:
            self.done_keys = launch.finished.keys
            self.errors = [{k: r.get(k) for k in ("eval_id", "target", "error")}
                           for r in launch.finished.records if r.get("error")]

    async def __aenter__(self) -> RunSession:
        launch = self.launch
        await plan_stage(self)
        try:
            await preflight_stage(self)
        except BaseException:
            self._abandon_writer()
            raise
        self._closers.append(lambda: close_runtimes(self.runtimes))
        self.writer = launch.writer or self._open_writer()
        self._closers.append(self.writer.close)
        self.writer.begin()
        opts = self.plan.options
        self.runner = CaseRunner(self.runtimes, RunOptions(
            include_trace=opts.include_trace, dump_prompts=opts.dump_prompts,
            dump_traces=opts.dump_traces))
        self.limits: Limits = LocalLimits(self.plan.workers, self.file_caps())
        self.jobs = JobRunner(self.runner, self.limits, self.control, self.record_finished)
        self._watchdog = asyncio.ensure_future(self.control.watchdog())
        return self

    async def __aexit__(self, *exc: Any) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
        try:
            for close in reversed(self._closers):
                done = close()
                if asyncio.iscoroutine(done):
                    await done
        finally:
            self._closers.clear()
            # Prefect keeps the contexts of some task runs alive (its event loop thread's
            # drain calls copy them, arguments included): a closed session is an empty shell
            for name in ("plan", "runtimes", "writer", "runner", "limits", "jobs", "launch",
                         "errors", "warnings", "done_keys", "options"):
                self.__dict__.pop(name, None)

    def on_close(self, close: Callable[[], Any]) -> None:
        """Also run ``close`` (sync or async) when the session ends."""
        self._closers.append(close)

    def file_caps(self) -> dict[str, int]:
        return file_worker_caps([s.path for s in self.plan.suites], self.plan.workers)

    def pending(self) -> list[Job]:
        return [j for j in self.plan.jobs if j.key not in self.done_keys]

    def _open_writer(self) -> ResultWriter:
        opts = self.plan.options
        out = opts.out or str(default_results_path(opts.output_format))
        return ResultWriter(out, opts.output_format, append=self.launch.finished is not None)

    def _abandon_writer(self) -> None:
        if self.launch.writer is not None:
            self.launch.writer.abandon()

    def record_finished(self, record: Record) -> Record | None:
        """Write one record (scrubbed of secrets); returns what was written. A write failure
        stops the run: nothing new starts, the file keeps only whole records (resumable)."""
        control = self.control
        if control.io_error is not None:
            control.skipped += 1
            return None
        try:
            record = self.writer.write(record)
        except OSError as err:
            control.io_error = f"{self.writer.path}: cannot write results: {err.strerror or err}"
            control.skipped += 1
            control.request_stop()
            return None
        where = {"eval_id": record["eval_id"], "target": record["target"],
                 "file": case_file(record)}
        if record.get("error"):
            self.errors.append({**where, "error": record["error"]})
        for problem in evaluator_problems(record.get("evaluator_results")):
            (self.errors if problem.is_error else self.warnings).append(
                {**where, "evaluator": problem.evaluator, "error": problem.message})
        if self.launch.on_record:
            self.launch.on_record(record)
        return record

