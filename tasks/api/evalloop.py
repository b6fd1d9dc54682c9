"""``EvalLoop``: a worker that takes ``EvalRequest``s from a mailbox, runs each sample through
agentv's job runner (``tasks.engine.jobs.JobRunner.run_one`` over
``tasks.engine.case_runner.CaseRunner``: the same
slots, stop control, target call, retries, evaluators and result record as a YAML suite) and
sends its ``EvalResult`` to the results mailbox. A Redis outage is waited out
(``tasks.api.reconnect``): the samples held through it are acknowledged after, not redelivered.

A target failure is retried by redelivery: the message is released with backoff
(``retry_delay_seconds`` × 2ⁿ) until its ``max_deliveries``-th delivery, then it goes to the
dead-letter queue and its error result is sent. A worker that dies mid-sample holds no lock:
its message reappears after the visibility timeout (the loop extends the lease of samples
still running). SIGTERM/SIGINT: finish the samples in flight, take no new ones (the run's
``RunControl`` with no grace deadline); a second signal releases them (``RunControl.release``
cancels them; their messages are visible again at once) and stops.
"""
from __future__ import annotations

import asyncio
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Generic, TypeVar

from agentv.evaluators.report import EvalResult, result_from_record
from agentv.evaluators.score import Score
from agentv.providers import secrets
from agentv.tasks.api.dataset import Dataset, Sample, dataset_suite
from agentv.tasks.api.mailbox import Mailbox, Message
from agentv.tasks.api.mailbox_codec import EvalRequest, Undecodable
from agentv.tasks.api.reconnect import Outage, reconnecting

if TYPE_CHECKING:  # imported when a loop starts
    from agentv.tasks.api.callable_target import CallableProvider
    from agentv.tasks.engine.jobs import JobRunner
    from agentv.tasks.results.write import ResultWriter

InputT = TypeVar("InputT")
ExpectedT = TypeVar("ExpectedT")


@dataclass(frozen=True)
class EvalProgram:
    """What ``agentv worker --program module:attr`` loads: the evaluator, the target
    (a callable, a targets.yaml name or a ``Target``; ``--target`` overrides it) and the
    types the samples' JSON is rebuilt as."""

    evaluator: Any
    target: Any = None
    input_type: Any = Any
    expected_type: Any = Any
    judge: Any = None


def _log(message: str) -> None:
    print(message, file=sys.stderr)


class EvalLoop(Generic[InputT, ExpectedT]):
    def __init__(self, *, loop: Any, evaluator: Any, requests: Mailbox[EvalRequest],
                 results: Mailbox[EvalResult], judge: Any = None, targets: str | None = None,
                 out: str | None = None, workers: int = 1, visibility_timeout: float = 60.0,
                 wait_time_seconds: float = 2.0, retry_delay_seconds: float = 1.0,
                 name: str = "evalloop", log: Callable[[str], None] = _log):
        from agentv.tasks.api.typed_targets import run_targets
        from agentv.tasks.engine.jobs import RunControl

        self.evaluator = evaluator
        self.workers, self.visibility_timeout = max(1, workers), visibility_timeout
        self.wait_time_seconds, self.retry_delay_seconds = wait_time_seconds, retry_delay_seconds
        self.name, self.out, self.log = name, out, log
        with secrets.scope() as self.secrets:  # the caller's registry, else the loop's own
            self.used, self.target_name, self.judge_name = run_targets(loop, judge, targets, log)
        self._target = loop
        self._expected: dict[str, Any] = {}
        # the first stop lets in-flight samples finish (no deadline); release() cancels them
        self.control = RunControl(grace_s=None)
        # a Redis outage is waited out: no new samples once stopping, nothing after release
        outage = Outage(log, "worker")
        self.requests = reconnecting(requests, outage, lambda: self.control.stopping,
                                     lambda: self.control.released)
        self.results = reconnecting(results, outage, give_up=lambda: self.control.released)
        self._inflight: dict[asyncio.Task, Message[EvalRequest]] = {}  # leases to keep
        self._jobs: JobRunner | None = None
        self._provider: CallableProvider | None = None
        self._writer: ResultWriter | None = None

    @property
    def released(self) -> bool:
        return self.control.released

    def stop(self) -> None:
        """Finish the samples in flight, then return from ``run``."""
        self.control.request_stop()

    def run(self, max_iterations: int | None = None, *, until_empty: bool = False) -> int:
        """Process requests until ``stop()``/SIGTERM, ``max_iterations`` receives, or — with
        ``until_empty`` — until the requests mailbox holds nothing (none queued, delayed or in
        flight). Returns the number of messages handled. After ``release()`` (a second
        signal) it returns without waiting for target threads still running: ``released``
        is then True and the caller should exit the process."""
        loop = asyncio.new_event_loop()
        # a thread per running sample (sync targets, evaluators) plus the mailbox calls
        loop.set_default_executor(ThreadPoolExecutor(self.workers * 2 + 4, "evalloop"))
        try:
            with secrets.scope(self.secrets):  # what it writes and sends is scrubbed
                return loop.run_until_complete(self._run(max_iterations, until_empty))
        finally:
            if not self.released:
                loop.run_until_complete(loop.shutdown_default_executor())
            loop.close()

    def release(self) -> None:
        """Stop now: the samples in flight are released (visible again at once)."""
        self.control.release()

    async def _run(self, max_iterations: int | None, until_empty: bool = False) -> int:
        self._setup()
        restore = self._install_signals()
        keeper = asyncio.create_task(self._keep_leases())
        handled, iterations = 0, 0
        try:
            while not self.control.stopping and (max_iterations is None
                                                 or iterations < max_iterations):
                free = self.workers - len(self._inflight)
                if free <= 0:
                    await asyncio.wait(set(self._inflight), return_when=asyncio.FIRST_COMPLETED)
                    continue
                wait = 0.05 if self._inflight else self.wait_time_seconds
                messages = await asyncio.to_thread(self.requests.receive, free, wait,
                                                   self.visibility_timeout)
                iterations += 1
                if until_empty and not messages and not self._inflight and \
                        await asyncio.to_thread(self.requests.approximate_count) == 0:
                    break
                if self.control.stopping:
                    await asyncio.gather(*(asyncio.to_thread(m.nack, 0) for m in messages))
                    break
                for message in messages:
                    task = asyncio.create_task(self._handle_safely(message))
                    self._inflight[task] = message
                    task.add_done_callback(self._inflight.pop)
                handled += len(messages)
            if self._inflight:
                await asyncio.wait(set(self._inflight))
        finally:
            keeper.cancel()
            restore()
            await self._close()
        return handled

    def _setup(self) -> None:
        from agentv.tasks.api.callable_target import CallableProvider, typed_evaluators
        from agentv.tasks.api.typed_targets import typed_runtimes
        from agentv.tasks.engine.case_runner import RunOptions
        from agentv.tasks.engine.jobs import JobRunner, LocalLimits
        from agentv.tasks.plan.expand import Job

        main = self.used[self.target_name]
        if main.provider == "python":
            self._provider = CallableProvider(main, self._target, {})
        probe = Job(self._case(Sample("preflight", None, None)), self.target_name)
        runtimes = typed_runtimes(self.used, self.target_name, self.judge_name, self._provider,
                                  [probe], self.workers)
        self._evaluators = typed_evaluators(self.evaluator, self._expected.__getitem__,
                                            self._provider)
        self._jobs = JobRunner.for_targets(runtimes, RunOptions(),
                                           LocalLimits(self.workers, {}), self.control)
        if self.out:
            from agentv.tasks.results.write import ResultWriter
            self._writer = ResultWriter(self.out, append=True)

    def _case(self, sample: Sample):
        return dataset_suite(Dataset((sample,)), self.name, getattr(self, "_evaluators", []))\
            .cases[0]

    async def _keep_leases(self) -> None:
        """Extend the lease of every sample still running, every third of the timeout."""
        while True:
            await asyncio.sleep(self.visibility_timeout / 3)
            for message in list(self._inflight.values()):
                await asyncio.to_thread(message.extend, self.visibility_timeout)

    async def _handle_safely(self, message: Message[EvalRequest]) -> None:
        """A failure outside the sample (the results mailbox unreachable, ...) is logged; the
        message is released with a delay, else its lease runs out."""
        try:
            await self._handle(message)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # noqa: BLE001 - the worker goes on
            self.log(f"worker: message {message.id}: {type(err).__name__}: {err}")
            try:
                await asyncio.to_thread(message.nack, self.retry_delay_seconds)
            except Exception:  # noqa: BLE001 - the lease runs out instead
                pass

    async def _handle(self, message: Message[EvalRequest]) -> None:
        from agentv.tasks.plan.expand import Job

        if isinstance(message.body, Undecodable):
            await self._undecodable(message, message.body)
            return
        request = message.body
        sample = request.sample
        limit = self.requests.max_deliveries
        if message.delivery_count > limit:
            reason = f"delivered {message.delivery_count} times (limit {limit}); never finished"
            await self._dead_letter(message, EvalResult(sample.id, Score(0.0, False, reason), 0.0,
                                                        reason, request_id=request.request_id))
            return
        self._expected[sample.id] = sample.expected
        if self._provider is not None:
            self._provider.inputs[sample.id] = sample.input
        assert self._jobs is not None  # _setup ran
        try:
            record = await self._jobs.run_one(Job(self._case(sample), self.target_name))
        finally:
            self._forget(sample.id)
        if record is None:  # stopping before it started, or released: another worker takes it
            await asyncio.to_thread(message.nack, 0)
            return
        record["request_id"] = request.request_id
        result = result_from_record(record)
        result = EvalResult(result.sample_id, result.score, result.latency_ms, result.error,
                            record, request.request_id)
        if record.get("error") and message.delivery_count < limit:
            delay = min(self.retry_delay_seconds * 2 ** (message.delivery_count - 1), 300.0)
            self.log(f"sample {sample.id}: {record['error']} (delivery {message.delivery_count}"
                     f" of {limit}); retrying in {delay:g}s")
            await asyncio.to_thread(message.nack, delay)
            return
        if record.get("error"):
            await self._dead_letter(message, result)
            return
        await self._deliver(message, result)

    async def _undecodable(self, message: Message, body: Undecodable) -> None:
        """A request this worker cannot read (another program's types?): its error result
        when the sample is known, and the dead-letter queue."""
        ids = body.ids()
        self.log(f"worker: message {message.id}: {body.error}")
        if ids is not None:
            result = EvalResult(ids[0], Score(0.0, False, body.error), 0.0, body.error,
                                request_id=ids[1])
            await asyncio.to_thread(self.results.send, result)
        await asyncio.to_thread(message.mailbox.dead_letter, message, body.error)

    def _forget(self, sample_id: str) -> None:
        self._expected.pop(sample_id, None)
        if self._provider is not None:
            self._provider.forget(sample_id)

    async def _dead_letter(self, message: Message[EvalRequest], result: EvalResult) -> None:
        self.log(f"sample {result.sample_id}: dead-lettered after {message.delivery_count} "
                 f"deliveries: {result.error}")
        await asyncio.to_thread(self.results.send, result)
        if result.record is not None and self._writer is not None:
            self._writer.write(result.record)
        await asyncio.to_thread(message.mailbox.dead_letter, message, result.error or "")

    async def _deliver(self, message: Message[EvalRequest], result: EvalResult) -> None:
        if self._writer is not None and result.record is not None:
            self._writer.write(result.record)
        await asyncio.to_thread(self.results.send, result)
        await asyncio.to_thread(message.acknowledge)

    def _install_signals(self) -> Callable[[], None]:
        if threading.current_thread() is not threading.main_thread():
            return lambda: None
        loop = asyncio.get_running_loop()

        def on_signal() -> None:
            if self.control.stopping:  # second signal: release what is in flight
                self.log("worker: releasing the samples in flight")
                self.release()
                return
            self.log("worker: stopping after the samples in flight (signal again to release "
                     "them now)")
            self.control.request_stop()
        signals = (signal.SIGTERM, signal.SIGINT)
        for sig in signals:
            loop.add_signal_handler(sig, on_signal)

        def restore() -> None:
            for sig in signals:
                loop.remove_signal_handler(sig)
        return restore

    async def _close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        if self._jobs is not None:
            from agentv.tasks.engine.runtime import close_runtimes
            await close_runtimes(self._jobs.runner.targets)
