"""The hand-over from a launcher to the ``agentv-eval`` flow it starts in this process.

What a launcher prepared (a plan already validated, runtimes already preflight-checked, the
locked writer, the console's ``on_record``, the signal handler, a head start of cases) is
handed over as a ``Launch`` in a context variable for the duration of the flow call
(``launching``): the flow's parameters stay JSON, nothing outlives the call, and there is no
registry of runs. No Prefect here: the launcher builds it before Prefect is imported.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

from agentv.flows.prefect.recording import Recording
from agentv.tasks.engine.case_runner import TargetRuntime
from agentv.tasks.engine.head_start import HeadStart
from agentv.tasks.engine.jobs import Record, RunControl
from agentv.tasks.plan.expand import Job
from agentv.tasks.plan.plan import Plan
from agentv.tasks.plan.resume import Finished
from agentv.tasks.results.ledger import RunLedger
from agentv.tasks.results.write import ResultWriter


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
    remote: Callable[[Sequence[Job]], Any] | None = None
    head: HeadStart | None = None  # cases the launcher started before the flow run existed
    ledger: RunLedger | None = None  # where the head start's cases are recorded
    recording: Recording = field(default_factory=Recording)  # Prefect's, until the API is lost
    opened: bool = False  # a RunSession took the run's resources (and closes them)

    def release(self) -> None:
        """The call is over: let go of the run (the outcome stays)."""
        self.plan = self.runtimes = self.writer = self.finished = None
        self.on_record = self.signal_handler = self.remote = self.head = self.ledger = None


# A one-slot box, emptied when the call ends: Prefect's background threads and tasks copy
# the context they start in, and must not keep a run alive through it.
_LAUNCH: ContextVar[list[Launch]] = ContextVar("agentv_launch", default=[])  # noqa: B039


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
