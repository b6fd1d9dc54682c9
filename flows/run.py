"""``Run``: one eval run and everything it holds, owned in one place.

A run is made by one factory (``flows.launch.open_run``) from checked options — for the
``agentv`` command, the typed API, deployments and Dask workers alike — before Prefect is
imported: its plan (loaded, validated), its target runtimes (preflight-checked, judges
included), its locked results writer, its secret registry, its interrupt control and its
Prefect recording. ``async with run:`` opens the rest — the ledger records are written
through, the one job runner (with a head start of the first cases when the flow's
batches run here), the watchdog — and closes all of it on the way out, whatever happened:
the job runner's unadopted cases, every closer the flow registered (a Dask cluster's
state), the runtimes, the writer (abandoned when nothing ran), the recording. The
``agentv-eval`` flow receives the run as a parameter it never serializes.
"""
from __future__ import annotations

import asyncio
import signal
from contextlib import ExitStack
from typing import Any, Callable, Sequence, TypeVar, cast

from agentv.flows.prefect.recording import Recording
from agentv.providers import secrets
from agentv.tasks.engine.case_runner import CaseRunner, TargetRuntime
from agentv.tasks.engine.head_start import HeadStart, head_start_allowed, local_job_runner
from agentv.tasks.engine.jobs import JobRunner, Record, RunControl
from agentv.tasks.engine.runtime import close_runtimes
from agentv.tasks.load.redact import redact_log_handlers
from agentv.tasks.plan.expand import Job, not_done
from agentv.tasks.plan.plan import Plan
from agentv.tasks.plan.resume import Finished
from agentv.tasks.results.ledger import RunLedger
from agentv.tasks.results.write import ResultWriter

T = TypeVar("T")
RUN_FIELDS = ("plan", "runtimes", "writer", "ledger", "jobs", "head", "finished", "on_record",
              "remote", "signal_handler", "_closers")


def as_is(value: T) -> T:
    """A flow or task argument Prefect hands over untouched: it does not walk into it
    looking for futures (a plan holds thousands of cases; a run holds open resources)."""
    from prefect.utilities.annotations import quote
    return cast(T, quote(value))


class Run:
    """One run's resources and state (see the module docstring). Not a dataclass: Prefect
    walks dataclass parameters looking for futures; a run is handed over as it is."""

    ledger: RunLedger  # set on entering
    jobs: JobRunner  # set on entering

    def __init__(self, plan: Plan, runtimes: dict[str, TargetRuntime], writer: ResultWriter,
                 *, finished: Finished | None = None,
                 on_record: Callable[[Record], None] | None = None,
                 started: float | None = None, registry: secrets.SecretRegistry | None = None,
                 remote: Callable[[Sequence[Job]], Any] | None = None):
        self.plan, self.runtimes, self.writer = plan, runtimes, writer
        self.finished, self.on_record, self.started = finished, on_record, started
        # --task-runner dask: how a worker gets a batch's jobs and runtimes (default: it
        # rebuilds the plan from the options; the typed API ships its cases)
        self.remote = remote
        self.secrets = registry or secrets.SecretRegistry()
        self.control = RunControl()  # the signal handler and the watchdog stop it
        self.recording = Recording()  # Prefect's, until its API is lost
        self.head: HeadStart | None = None
        self.signal_handler: Callable[[int, Any], None] | None = None
        self.outcome: dict[str, Any] | None = None  # the flow's result, also when Failed
        self.opened = False  # the flow took the run (its stages ran)
        self._closers: list[Callable[[], Any]] = []
        self._watchdog: asyncio.Future | None = None
        self._scope = ExitStack()
        self._began = False

    async def __aenter__(self) -> Run:
        self._scope.enter_context(secrets.scope(self.secrets))
        redact_log_handlers(self.secrets)  # Prefect's console and API logs scrub too
        self.ledger = RunLedger(self.writer, self.control, self.on_record, self.finished,
                                self.plan.record_thresholds())
        self.jobs = local_job_runner(self.plan, self.runtimes, self.ledger)
        return self

    def begin(self) -> None:
        """The run starts now: a fresh results file is emptied, the watchdog armed, and (the
        flow's batches running here) the first cases start at once — a head start inside
        the job runner while Prefect is imported and the flow run created."""
        if self._began:
            return
        self._began = True
        self.ledger.begin()
        self._watchdog = asyncio.ensure_future(self.control.watchdog())
        if self.remote is None and head_start_allowed(self.plan):
            self.head = HeadStart(self.plan, self.runtimes, self.jobs, self.ledger.done_keys)
            self.head.begin()

    async def __aexit__(self, *exc: Any) -> None:
        try:
            if self._watchdog is not None:
                self._watchdog.cancel()
            if self.head is not None:
                await self.head.close()  # what no batch adopted is cancelled (resumable)
            await self.close_registered()
        finally:
            await close_runtimes(self.runtimes)
            if self._began:
                self.writer.close()
            else:
                self.writer.abandon()  # nothing ran: the file we made goes
            self.recording.close()
            self._scope.close()
            self.release()

    def release(self) -> None:
        """Let go of what the run held (the outcome stays): Prefect's threads keep the
        contexts, arguments included, of some task runs alive."""
        for name in RUN_FIELDS:
            self.__dict__.pop(name, None)

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        """Prefect sends a flow run's context, its parameters included, with every task a
        Dask worker runs: a run does not travel (it arrives as None)."""
        return (_left_behind, ())

    # what the flow, its tasks and the runners use
    def arm_signals(self) -> None:
        """Prefect's flow engine installs its own SIGTERM bridge (a traceback, no summary):
        SIGTERM gets the run's graceful stop instead, as Ctrl-C does, and is let through
        (held since the launch, ``flows.signals.sigterm_held``)."""
        handler = self.signal_handler
        if handler is None:
            return
        try:
            signal.signal(signal.SIGTERM, handler)
        except ValueError:  # not the main thread
            return
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})

    @property
    def runner(self) -> CaseRunner:
        return self.jobs.runner

    def hand_over(self) -> None:
        """The flow's batches run now: the head start starts nothing more."""
        if self.head is not None:
            self.head.hand_over()

    def record_finished(self, record: Record) -> Record | None:
        return self.ledger.record_finished(record)

    def on_close(self, close: Callable[[], Any]) -> None:
        """Also run ``close`` (sync or async) when the flow ends (what it opened on its
        task runner, a Dask cluster's state, goes while the cluster is still there)."""
        self._closers.append(close)

    async def close_registered(self) -> None:
        """Run the ``on_close`` closers, last first, each once."""
        while self._closers:
            done = self._closers.pop()()
            if asyncio.iscoroutine(done):
                await done

    def finish(self, summary: dict[str, Any], wall_s: float, not_run: int,
               flow_run_id: str | None = None, flow_run_url: str | None = None
               ) -> dict[str, Any]:
        """The run's outcome (what ``agentv eval`` prints and exits by), kept as
        ``self.outcome``: from the flow, or from a run stopped before its flow run."""
        control = self.control
        self.outcome = {
            "summary": summary, "results": str(self.writer.path),
            "errors": self.ledger.errors, "warnings": self.ledger.warnings, "wall_s": wall_s,
            "flow_run_id": flow_run_id, "flow_run_url": flow_run_url,
            "interrupted": control.stopping, "not_run": not_run,
            "signal": control.stop_signal, "io_error": control.io_error,
            "gate_failures": summary.get("gate_failures") or []}
        return self.outcome

    def file_caps(self) -> dict[str, int]:
        return self.plan.file_caps()

    def pending(self) -> Sequence[Job]:
        return not_done(self.plan.jobs, self.ledger.done_keys)


def _left_behind() -> None:
    """What a ``Run`` unpickles to in another process."""
    return None
