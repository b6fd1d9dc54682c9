"""The one job runner: every job of a run (the local flow's batches and head start, a Dask
worker's batch, the typed API's EvalLoop samples, ``--prefect-tasks case``) goes through
``JobRunner.run_one``, on a runner built by ``JobRunner.for_targets``; a batch of jobs
through ``run_jobs`` (one provider call first with provider_batching, adopting the jobs a
head start began).

A job waits for a slot (its eval file's cap, then the run's ``--workers``), is skipped when
the run is stopping (Ctrl-C, SIGTERM, a failed write), is recorded as not run once the
run's ``--budget-usd`` is spent, runs, and hands its record to the sink. After a stop,
in-flight jobs get ``INTERRUPT_GRACE_S`` to finish, then they are cancelled (not
recorded, resumable). No Prefect here: the limits are asyncio semaphores in this process
or, under Dask, cluster-wide ``distributed.Semaphore``s (flows/runners/distributed.py).
"""
from __future__ import annotations

import asyncio
import time
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, AsyncIterator, Awaitable, Callable, Protocol, Sequence

from agentv.tasks.engine.case_runner import CaseRunner, RunOptions, TargetRuntime
from agentv.tasks.plan.expand import Job

INTERRUPT_GRACE_S = 3.0
Record = dict[str, Any]


class Limits(Protocol):
    """Concurrency slots: ``slot(file)`` holds the file's cap and a ``--workers`` slot;
    ``slot(None)`` only a ``--workers`` slot (a provider_batching call)."""

    def slot(self, file: str | None) -> AbstractAsyncContextManager[None]: ...


class LocalLimits:
    """``--workers`` and the per-file caps as semaphores of this process."""

    def __init__(self, workers: int, file_caps: dict[str, int]):
        self.workers = asyncio.Semaphore(workers)
        self.files = {f: asyncio.Semaphore(n) for f, n in file_caps.items()}

    @asynccontextmanager
    async def slot(self, file: str | None) -> AsyncIterator[None]:
        cap = self.files.get(file) if file is not None else None
        if cap is None:
            async with self.workers:
                yield
            return
        async with cap, self.workers:
            yield


class RunControl:
    """A run's stop state: the first stop (signal or write failure) schedules nothing new;
    the watchdog cancels what still runs once the grace period is over (``grace_s=None``:
    in-flight jobs finish however long they take, until ``release()``)."""

    def __init__(self, grace_s: float | None = INTERRUPT_GRACE_S):
        self.grace_s = grace_s
        self.stop_requested: float | None = None  # monotonic time of the first stop
        self.stop_signal: int | None = None
        self.io_error: str | None = None
        self.released = False
        self.skipped = 0
        self.in_flight: set[asyncio.Task] = set()

    @property
    def stopping(self) -> bool:
        return self.stop_requested is not None

    def request_stop(self, signum: int | None = None) -> None:
        if self.stop_requested is None:
            self.stop_requested = time.monotonic()
            self.stop_signal = signum

    def release(self) -> None:
        """Stop now (a second signal): every job in flight is cancelled (not recorded)."""
        self.request_stop()
        self.released = True
        for in_flight in list(self.in_flight):
            in_flight.cancel()

    async def watchdog(self) -> None:
        """After a stop: in-flight jobs get the grace period, then they are cancelled."""
        while self.stop_requested is None:
            await asyncio.sleep(0.1)
        if self.grace_s is None:
            return  # no deadline: only release() cancels
        while time.monotonic() - self.stop_requested < self.grace_s and self.in_flight:
            await asyncio.sleep(0.05)
        for in_flight in list(self.in_flight):
            in_flight.cancel()


class Budget:
    """``--budget-usd``: what the run has spent (each record's target and judge costs);
    once that reaches the cap no case starts — each is recorded as not run instead."""

    def __init__(self, cap_usd: float):
        self.cap, self.spent, self.not_run = cap_usd, 0.0, 0

    @property
    def exceeded(self) -> bool:
        return self.spent >= self.cap

    def add(self, record: Record | None) -> None:
        if record:
            self.spent += record_cost(record)

    def reason(self) -> str:
        return (f"not run: run budget exceeded (${self.spent:.4f} of ${self.cap:.4f} "
                "spent)")


def record_cost(record: Record) -> float:
    """USD a record cost: its target's reply and its evaluators' judge calls."""
    usages = [record.get("usage")] + [r.get("usage") for r in record.get("evaluator_results")
                                      or [] if isinstance(r, dict)]
    return sum(float(u["cost_usd"]) for u in usages
               if isinstance(u, dict) and isinstance(u.get("cost_usd"), (int, float)))


class JobRunner:
    """Runs jobs under ``limits`` and ``control``; ``execute`` runs one job (the case
    runner, or ``--prefect-tasks case``'s task runs); ``sink`` takes each record and returns
    what was written (None: nothing)."""

    def __init__(self, runner: CaseRunner, limits: Limits, control: RunControl,
                 sink: Callable[[Record], Record | None] = lambda r: r,
                 execute: Callable[[Job], Awaitable[Record]] | None = None,
                 budget: Budget | None = None):
        self.runner, self.limits, self.control, self.sink = runner, limits, control, sink
        self.execute = execute or runner.run
        self.budget = budget
        self.started: dict[str, asyncio.Task[Record | None]] = {}  # head start, by job key
        # whether each job it runs is marked as begun (``Job.begun_by``): a run's local
        # runner, not a long-lived worker's
        self.marks_begun = False

    @classmethod
    def for_targets(cls, runtimes: dict[str, TargetRuntime], options: RunOptions,
                    limits: Limits, control: RunControl,
                    sink: Callable[[Record], Record | None] = lambda r: r,
                    budget: Budget | None = None) -> JobRunner:
        """The one entry: the case runner over these runtimes, under ``limits`` and
        ``control`` (and ``budget``), each record to ``sink``."""
        return cls(CaseRunner(runtimes, options), limits, control, sink, budget=budget)

    def start(self, job: Job) -> asyncio.Task[Record | None]:
        """Run ``job`` now (a head start, before its batch exists); the batch adopts it."""
        task = self.started[job.key] = asyncio.ensure_future(self.run_one(job))
        return task

    def not_begun(self, jobs: Sequence[Job]) -> list[Job]:
        """``jobs`` but those that run or ran already (a head start's are adopted): a batch
        run again, outside Prefect, after Prefect failed around it, runs no case twice."""
        return [job for job in jobs
                if job.begun_by is not self or job.key in self.started]

    def holds(self, jobs: Sequence[Job]) -> bool:
        """Whether some of ``jobs`` already started (a batch must adopt them)."""
        return any(job.key in self.started for job in jobs)

    async def run_batch(self, jobs: Sequence[Job]) -> list[Record]:
        """``run_jobs``, the records of the jobs that ran."""
        return [r for r in await self.run_jobs(jobs) if r is not None]

    async def run_jobs(self, jobs: Sequence[Job]) -> list[Record | None]:
        """Run ``jobs`` concurrently (one provider call first with provider_batching),
        adopting those that already started; each job's record, None when it did not run."""
        fresh = [job for job in jobs if job.key not in self.started]
        if fresh and self.runner.batching(fresh) and not self.control.stopping \
                and not (self.budget and self.budget.exceeded):
            async with self.limits.slot(None):
                await self.runner.prefetch(fresh)
        return list(await asyncio.gather(*(self._adopt_or_run(job) for job in jobs)))

    async def _adopt_or_run(self, job: Job) -> Record | None:
        task = self.started.pop(job.key, None)
        return await (task if task is not None else self.run_one(job))

    async def settle_started(self) -> None:
        """Wait for what started (a head start's cases) to end: run, skipped while
        stopping, or cancelled once the grace period is over."""
        await asyncio.gather(*self.started.values(), return_exceptions=True)

    async def abandon_started(self) -> None:
        """Cancel what started and was never adopted (the flow did not run): not recorded,
        resumable."""
        left, self.started = list(self.started.values()), {}
        for task in left:
            task.cancel()
        await asyncio.gather(*left, return_exceptions=True)

    async def run_one(self, job: Job) -> Record | None:
        control = self.control
        async with self.limits.slot(job.case.file):
            if control.stopping:
                control.skipped += 1
                return None  # stopping: schedule nothing new
            if self.marks_begun:
                job.begun_by = self
            if self.budget is not None and self.budget.exceeded:
                self.budget.not_run += 1
                return self.sink(self.runner.not_run_record(job, self.budget.reason()))
            task = asyncio.current_task()
            if task is not None:
                control.in_flight.add(task)
            try:
                record = await self.execute(job)
            except asyncio.CancelledError:
                control.skipped += 1
                job.begun_by = None
                return None  # cancelled after the grace period: not recorded, resumable
            finally:
                if task is not None:
                    control.in_flight.discard(task)
        if self.budget is not None:
            self.budget.add(record)
        return self.sink(record)
