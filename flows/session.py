"""``RunSession``: one run's resources, opened inside the ``agentv-eval`` flow and closed when
it ends — the plan, the results writer, every target runtime (judges included), the
concurrency limits, the interrupt control (signals, watchdog), the secret registry every
sink scrubs with, and the job runner.

What a launcher prepared in this process comes as a ``Launch`` (flows/handover.py),
including a head start's ledger and job runner with cases already running. Without a launch
(a deployment starting the flow) the session builds all of it from the options.
"""
from __future__ import annotations

import asyncio
from contextlib import ExitStack
from typing import Any, Callable, Sequence, TypeVar, cast

from prefect import task
from prefect.cache_policies import NO_CACHE
from prefect.utilities.annotations import quote

from agentv.flows.handover import Launch
from agentv.flows.prefect.recording import run_logger
from agentv.flows.prefect.scrubbed import PERSIST, scrub_errors
from agentv.flows.prefect.shared_limits import prefect_pools
from agentv.providers import secrets
from agentv.tasks.engine.case_runner import CaseRunner, TargetRuntime
from agentv.tasks.engine.head_start import local_job_runner
from agentv.tasks.engine.jobs import JobRunner, Record
from agentv.tasks.engine.runtime import build_runtimes, close_runtimes
from agentv.tasks.load.redact import redact_log_handlers
from agentv.tasks.plan.expand import Job, not_done
from agentv.tasks.plan.outputs import default_results_path
from agentv.tasks.plan.plan import EvalOptions, Plan, build_plan
from agentv.tasks.results.ledger import RunLedger
from agentv.tasks.results.write import ResultWriter

T = TypeVar("T")


def as_is(value: T) -> T:
    """A task argument Prefect hands over untouched: it does not walk into it looking for
    futures (a plan holds thousands of cases; a session holds open resources)."""
    return cast(T, quote(value))


@task(name="load-and-expand", cache_policy=NO_CACHE, persist_result=PERSIST)
@scrub_errors
async def plan_stage(session: RunSession) -> int:
    """Load eval files and targets, select targets, expand cases × trials into jobs (done
    already when the launcher validated the run before the flow)."""
    plan = session.plan = session.launch.plan or build_plan(EvalOptions(**session.options))
    run_logger().info("%d eval file(s), %d job(s), targets: %s, workers: %d",
                          len(plan.suites), len(plan.jobs), ", ".join(plan.targets), plan.workers)
    return len(plan.jobs)


@task(name="preflight-targets", cache_policy=NO_CACHE, persist_result=PERSIST)
@scrub_errors
async def preflight_stage(session: RunSession) -> list[str]:
    """Build each selected target's provider and check its configuration once (done
    already when the launcher preflight-checked the targets)."""
    runtimes = session.runtimes = session.launch.runtimes or build_runtimes(
        session.plan, prefect_pools())
    return sorted(runtimes)


class RunSession:
    """``async with RunSession(options, launch) as session``: everything a run holds, closed
    on exit (runtimes, the writer, cluster-wide limits) whatever happened. With a launcher's
    head start, its ledger and job runner (cases already running) are the session's.

    Its secret registry is the launcher's (the ``agentv`` command, ``run_eval``,
    ``run_dataset``: the values their loading registered), else its own (a deployment's
    run); the session makes it the registry of everything the run does and of every log
    handler."""

    plan: Plan  # set by the load-and-expand stage
    runtimes: dict[str, TargetRuntime]  # set by the preflight-targets stage
    ledger: RunLedger
    jobs: JobRunner

    def __init__(self, options: dict[str, Any], launch: Launch):
        self.options, self.launch, self.control = options, launch, launch.control
        self.head, self.recording = launch.head, launch.recording
        self.secrets = secrets.current() or secrets.SecretRegistry()
        self._closers: list[Callable[[], Any]] = []
        self._watchdog: asyncio.Future | None = None
        self._scope = ExitStack()

    async def __aenter__(self) -> RunSession:
        self.launch.opened = True  # from now on, this session owns what the run opened
        self._scope.enter_context(secrets.scope(self.secrets))
        try:
            redact_log_handlers(self.secrets)  # Prefect's console and API logs scrub
            self._arm_signals()
            await self._open()
        except BaseException:
            await self.__aexit__()  # what opened before the failure closes too
            raise
        return self

    async def _open(self) -> None:
        launch = self.launch
        await self.recording.call(plan_stage, self)
        try:
            await self.recording.call(preflight_stage, self)
        except BaseException:
            self._abandon_writer()
            raise
        self._closers.append(lambda: close_runtimes(self.runtimes))
        if self.head is not None and launch.ledger is not None:
            self.ledger, self.jobs = launch.ledger, self.head.jobs
        else:
            self.ledger = RunLedger(launch.writer or self._open_writer(), self.control,
                                    launch.on_record, launch.finished,
                                    self.plan.record_thresholds())
            self.jobs = local_job_runner(self.plan, self.runtimes, self.ledger)
        self._closers.append(self.ledger.writer.close)
        self.ledger.begin()
        self._watchdog = asyncio.ensure_future(self.control.watchdog())

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
            self._scope.close()
            # Prefect keeps the contexts of some task runs alive (its event loop thread's
            # drain calls copy them, arguments included): a closed session is an empty shell
            for name in ("plan", "runtimes", "ledger", "jobs", "launch", "head", "options",
                         "secrets"):
                self.__dict__.pop(name, None)

    def _arm_signals(self) -> None:
        """Prefect's flow engine installs its own SIGTERM bridge (a traceback, no summary):
        SIGTERM gets agentv's graceful stop instead (the launcher's handler), as Ctrl-C
        does. The launcher restores the process's handlers when its call ends."""
        handler = self.launch.signal_handler
        if handler is None:
            return
        import signal
        try:
            signal.signal(signal.SIGTERM, handler)
        except ValueError:  # not the main thread
            return
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})  # held since the launch

    @property
    def writer(self) -> ResultWriter:
        return self.ledger.writer

    @property
    def runner(self) -> CaseRunner:
        return self.jobs.runner

    def hand_over(self) -> None:
        """The flow's batches run now: a head start starts nothing more."""
        if self.head is not None:
            self.head.hand_over()

    def record_finished(self, record: Record) -> Record | None:
        return self.ledger.record_finished(record)

    def on_close(self, close: Callable[[], Any]) -> None:
        """Also run ``close`` (sync or async) when the session ends."""
        self._closers.append(close)

    def file_caps(self) -> dict[str, int]:
        return self.plan.file_caps()

    def pending(self) -> Sequence[Job]:
        return not_done(self.plan.jobs, self.ledger.done_keys)

    def _open_writer(self) -> ResultWriter:
        opts = self.plan.options
        out = opts.out or str(default_results_path(opts.output_format))
        return ResultWriter(out, opts.output_format, append=self.launch.finished is not None)

    def _abandon_writer(self) -> None:
        if self.launch.writer is not None:
            self.launch.writer.abandon()
