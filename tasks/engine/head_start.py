"""A run's local job machinery, and its head start.

``local_job_runner`` builds what runs a plan's jobs in this process: the case runner, the
``--workers`` and per-file limits, the job runner writing into the run's ledger.

``HeadStart``: the first cases go out through the run's job runner while Prefect is still
being imported and the flow run created (that costs 1.5–2 s here). The run starts them,
in the order of the batches the flow will run, at most ``--workers`` at a time; when the
flow runs its ``run-cases`` batch tasks, each adopts its cases that already started
(``JobRunner.run_batch``) and the head start hands over. Records are written by the ledger
as each case completes, as always. What is never adopted (the flow did not run) is
cancelled: not recorded, resumable.
"""
from __future__ import annotations

import asyncio
from itertools import islice
from typing import Protocol, Sequence

from agentv.tasks.engine.case_runner import RunOptions, TargetRuntime
from agentv.tasks.engine.jobs import Budget, JobRunner, LocalLimits, Record, RunControl
from agentv.tasks.plan.batching import batching_targets, run_batches
from agentv.tasks.plan.expand import Job, not_done
from agentv.tasks.plan.plan import Plan


class Ledger(Protocol):
    """Where finished cases go (``tasks.results.ledger.RunLedger``): the engine writes
    through this port and never imports the results layer."""
    control: RunControl
    done_keys: set[str]

    def begin(self) -> None: ...

    def record_finished(self, record: Record) -> Record | None: ...


HELD_MAX = 2000  # started cases whose records wait for their batch task, at most


def local_job_runner(plan: Plan, runtimes: dict[str, TargetRuntime],
                     ledger: Ledger) -> JobRunner:
    opts = plan.options
    options = RunOptions(include_trace=opts.include_trace, dump_prompts=opts.dump_prompts,
                         dump_traces=opts.dump_traces, thresholds=plan.thresholds,
                         keep_workspaces=plan.keep_workspaces)
    caps = plan.file_caps()
    budget = Budget(opts.budget_usd) if opts.budget_usd is not None else None
    runner = JobRunner.for_targets(runtimes, options, LocalLimits(plan.workers, caps),
                                   ledger.control, ledger.record_finished, budget)
    runner.marks_begun = True  # a batch run again outside Prefect runs no case twice
    return runner


def head_start_allowed(plan: Plan) -> bool:
    """Local batch tasks only: case tasks and Dask batches run each case inside its task."""
    opts = plan.options
    return opts.task_runner != "dask" and opts.prefect_tasks != "case"


class HeadStart:
    """An optimisation of the run's one job runner: ``begin()`` inside the run's event
    loop; ``hand_over()`` once the flow runs its batches; ``close()`` when the run ends
    (the run owns it and closes it)."""

    def __init__(self, plan: Plan, runtimes: dict[str, TargetRuntime], jobs: JobRunner,
                 done_keys: set[str]):
        self.plan, self.runtimes, self.jobs = plan, runtimes, jobs
        # the flow runs these very batches
        self.batches = run_batches(not_done(plan.jobs, done_keys), runtimes)
        self._tasks: list[asyncio.Future] = []

    def first_jobs(self) -> list[Job]:
        """The pending jobs in the order the flow's batches take them (not those of a
        provider_batching target: one call answers their whole batch)."""
        whole = batching_targets(self.runtimes)
        return list(islice((job for _, batch in self.batches if not _whole(batch, whole)
                            for job in batch), HELD_MAX))  # no Job made past those

    def begin(self) -> None:
        self._tasks = [asyncio.ensure_future(self._feed(self.first_jobs()))]

    async def _feed(self, jobs: list[Job]) -> None:
        window = asyncio.Semaphore(self.plan.workers)
        for job in jobs:
            await window.acquire()
            if self.jobs.control.stopping:
                return
            self.jobs.start(job).add_done_callback(lambda _: window.release())

    def hand_over(self) -> None:
        """The flow's batches take it from here: nothing more starts early."""
        self._tasks[0].cancel()

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await self.jobs.abandon_started()


def _whole(batch: Sequence[Job], whole: frozenset[str]) -> bool:
    return bool(batch) and batch[0].target in whole
