"""The recorder process: a run of the ``agentv`` command never imports Prefect. It runs its
stages itself (flows/stages.py) and tells them, as they happen, to a child process that
imports Prefect once and records the run there (flows/prefect/recorder.py): the
``agentv-eval`` flow run with its name, tags and options, a task run per stage and batch,
the artifacts, the log lines and the final state. Prefect's import (1–2 s of CPU) and
its client then run on another core, beside the cases, not under their interpreter lock.

``Mirror`` is the run's recording (``Recording``'s interface): sending never waits (a
writer thread feeds the child's stdin); what needs an answer (the flow run's id and page,
an artifact's id) waits for it, or for the API to be lost. The child reports a lost API;
the run goes on, as with Prefect in process. The run's end (``finish``) waits for the
child to have recorded everything; a run that dies leaves the child an end of input,
upon which it marks the flow run Crashed and exits."""
from __future__ import annotations

import asyncio
import contextvars
import itertools
import json
import logging
import queue
import subprocess
import threading
import uuid
from concurrent.futures import Future
from typing import Any, Callable

from agentv.flows.prefect.artifact_spec import Artifact
from agentv.flows.prefect.recorder_process import discard, mirrored, start_recorder
from agentv.flows.prefect.recording import Recording
from agentv.flows.prefect.scrubbed import scrubbed
from agentv.flows.prefect.stage import Final, Stage
from agentv.tasks.load.redact import redact

FINISH_S = 60.0  # the child records what is left after the run ended, at most this long
HURRIED_S = 1.0  # … after a stopped run ended
_task_run: contextvars.ContextVar[str | None] = contextvars.ContextVar("agentv_task_run",
                                                                        default=None)


class Mirror(Recording):
    def __init__(self, proc: subprocess.Popen, hurry: Callable[[], bool] = lambda: False
                 ) -> None:
        super().__init__()
        self.proc = proc
        self.hurry = hurry  # the run is stopping: what is not answered yet is not awaited
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._opened: Future[tuple[str, str | None]] = Future()
        self._replies: dict[int, Future[Any]] = {}
        self._seq = itertools.count()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._done = False  # the child said it recorded everything
        self._log = _MirrorLog(self)
        threading.Thread(target=self._write, name="agentv-mirror-out", daemon=True).start()
        threading.Thread(target=self._read, name="agentv-mirror-in", daemon=True).start()

    @classmethod
    def for_run(cls, opts: Any, recorder: subprocess.Popen | None = None) -> Mirror | None:
        """The mirror of a run with these options, through ``recorder`` (started early) or
        a recorder started now; None when the run's stages are Prefect's to run."""
        if not mirrored(opts.task_runner, opts.prefect_tasks):
            discard(recorder)
            return None
        return cls(recorder or start_recorder(opts.verbose))

    # what the run says
    def open(self, name: str, tags: list[str], parameters: dict[str, Any]) -> None:
        self._loop = asyncio.get_running_loop()
        self._send({"op": "open", "name": name, "tags": tags, "parameters": parameters})

    async def call(self, task: Any, *args: Any, return_state: bool = False) -> Any:
        """Run a stage here; its task run is mirrored (not once recording is lost)."""
        if not isinstance(task, Stage) or self.lost is not None:
            return await (task.fn(*args) if isinstance(task, Stage) else task(*args))
        run_id = str(uuid.uuid4())
        self._send({"op": "task", "id": run_id, "name": task.name,
                    "run_name": redact(task.title(*args))})
        token = _task_run.set(run_id)
        try:
            result = await task.fn(*args)
        except BaseException as err:
            message = str(scrubbed(err)) if isinstance(err, Exception) else type(err).__name__
            self._send({"op": "state", "id": run_id, "failed": True, "message": message})
            raise
        finally:
            _task_run.reset(token)
        self._send({"op": "state", "id": run_id, "failed": False, "message": ""})
        return result

    async def create(self, spec: Artifact, want_id: bool = False) -> Any:
        message: dict[str, Any] = {"op": "artifact", "spec": spec.as_json(),
                                   "task": _task_run.get()}
        if not want_id:
            self._send(message)
            return None
        seq = message["seq"] = next(self._seq)
        reply = self._replies[seq] = Future()
        self._send(message)
        return None if self.hurry() else await asyncio.wrap_future(reply)

    def flow_run_id(self) -> str | None:
        return self._opened.result()[0] if self._opened.done() else None

    def flow_run_url(self) -> str | None:
        return self._opened.result()[1] if self._opened.done() else None

    async def ids(self) -> tuple[str | None, str | None]:
        """Once the child has created the flow run (None, None: the API was lost first, or
        the run is stopping and it has not yet)."""
        if self.hurry() and not self._opened.done():
            return None, None
        return await self.publish(lambda: asyncio.wrap_future(self._opened)) or (None, None)

    def logger(self) -> logging.Logger | logging.LoggerAdapter:
        return self._log

    async def end(self, final: Final) -> Final:
        self._send({"op": "final", "failed": final.failed, "name": final.name,
                    "message": redact(final.message), "tags": list(final.tags)})
        return final

    def crashed(self, err: BaseException) -> None:
        """The run failed with ``err``: the flow run ends Failed with its (scrubbed) text."""
        text = str(scrubbed(err)) if isinstance(err, Exception) else type(err).__name__
        self._send({"op": "final", "failed": True, "name": None, "message": text,
                    "tags": []})

    def discard(self) -> None:
        """The run never began: the recorder goes, having recorded nothing."""
        self._outbox.put(None)
        discard(self.proc)

    def finish(self, timeout: float = FINISH_S) -> None:
        """The run is over: the child records what is left and exits (killed past
        ``timeout``, its recording then lost). A stopping run waits ``HURRIED_S`` at most:
        the child goes on recording what it was told, and exits when it is done."""
        self._outbox.put(None)
        try:
            self.proc.wait(HURRIED_S if self.hurry() else timeout)
        except subprocess.TimeoutExpired:
            if self.hurry():
                return
            self.proc.kill()
            self.proc.wait()
            self._child_lost(f"its recorder did not finish in {timeout:.0f} s")

    # the pipes
    def _send(self, message: dict[str, Any]) -> None:
        if self.lost is None:
            self._outbox.put(json.dumps(message, default=str).encode() + b"\n")

    def _write(self) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            while (line := self._outbox.get()) is not None:
                stdin.write(line)
                if self._outbox.empty():
                    stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        finally:
            try:
                stdin.close()
            except OSError:
                pass

    def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        for line in stdout:
            try:
                reply = json.loads(line)
            except ValueError:
                continue
            self._answer(reply)
        self._child_lost("its recorder process ended", quiet_if_done=True)

    def _answer(self, reply: dict[str, Any]) -> None:
        op = reply.get("op")
        if op == "opened" and not self._opened.done():
            self._opened.set_result((reply["id"], reply.get("url")))
        elif op == "artifact":
            waiting = self._replies.pop(reply.get("seq", -1), None)
            if waiting is not None and not waiting.done():
                waiting.set_result(reply.get("id"))
        elif op == "lost":
            self._child_lost(str(reply.get("reason")), reported=True)
        elif op == "warning":
            logging.getLogger("agentv.recording").warning("%s", redact(str(reply["message"])))
        elif op == "done":
            self._done = True

    def _child_lost(self, why: str, reported: bool = False, quiet_if_done: bool = False
                    ) -> None:
        if quiet_if_done and self._done:
            return
        reason = why if reported else f"no Prefect recording ({why})"
        if self._loop is not None and not self._loop.is_closed():
            try:
                self._loop.call_soon_threadsafe(self.stop_with, reason)
                return
            except RuntimeError:
                pass
        self.stop_with(reason)


class _MirrorLog(logging.LoggerAdapter):
    """The run's log lines, sent to its flow run (and its current task run)."""

    def __init__(self, mirror: Mirror) -> None:
        super().__init__(logging.getLogger("agentv.flow"), {})
        self.mirror = mirror

    def isEnabledFor(self, level: int) -> bool:
        return True

    def log(self, level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
        text = redact(str(msg) % args if args else str(msg))
        self.mirror._send({"op": "log", "level": level, "message": text,
                           "task": _task_run.get()})
