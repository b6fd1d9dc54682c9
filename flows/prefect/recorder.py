"""The recorder process (``python -m agentv.flows.prefect.recorder``): what a run of the
``agentv`` command tells it on stdin, one JSON object a line (flows/prefect/mirror.py), it
records in Prefect — the flow run, its task runs, artifacts, log lines and final state —
and it answers on stdout: the flow run's id and page, an artifact's id, a lost API.

One call at a time, in the order told (the server's database takes one writer at a time:
concurrent calls only wait for each other's locks). A task run whose end is already known
when it is created is created in its final state (one call, not two). Interrupts are the
run's to handle: this process ignores SIGINT and SIGTERM and ends when its input does, once
what it was told is recorded. An input that ends without the final state (the run died)
marks the flow run Crashed."""
from __future__ import annotations

import asyncio
import functools
import gc
import json
import signal
import sys
import threading
import warnings
from collections import deque
from datetime import datetime, timezone
from typing import Any

from agentv.flows.prefect.recording import api_lost, lost_reason

Message = dict[str, Any]


class Inbox:
    """The messages read so far, in order (a None once the input ended)."""

    def __init__(self) -> None:
        self.items: deque[Message | None] = deque()
        self.ready = asyncio.Event()

    def put(self, message: Message | None) -> None:
        self.items.append(message)
        self.ready.set()

    async def get(self) -> Message | None:
        while not self.items:
            self.ready.clear()
            await self.ready.wait()
        return self.items.popleft()

    def end_of(self, task_run: str) -> dict[str, Message]:
        """The end of ``task_run`` if it was read already (taken out of the inbox)."""
        for message in self.items:
            if message is not None and message["op"] == "state" and message["id"] == task_run:
                self.items.remove(message)
                return {task_run: message}
        return {}


class Recorder:
    def __init__(self, client: Any) -> None:
        self.client = client
        self.flow_run_id: Any = None
        self.lost: str | None = None
        self.ended = False
        self.known_ends: dict[str, Message] = {}  # a task run's end, taken with its start

    async def serve(self, inbox: Inbox) -> None:
        """Take messages until the input ends (a None)."""
        while (message := await inbox.get()) is not None:
            if message["op"] == "task":
                self.known_ends.update(inbox.end_of(message["id"]))
            await self.take(message)
        if self.flow_run_id is not None and not self.ended:
            await self.take({"op": "crashed"})
        reply({"op": "done"})

    async def take(self, message: Message) -> None:
        if self.lost is not None or (self.flow_run_id is None and message["op"] != "open"):
            return
        try:
            await getattr(self, message["op"])(message)
        except Exception as err:  # noqa: BLE001 - a lost API ends recording; else a warning
            if api_lost(err):
                self.lose(lost_reason(err))
            else:
                first = str(err).splitlines()[0] if str(err) else ""
                reply({"op": "warning",
                       "message": f"Prefect recording: {type(err).__name__}: {first}"})
        if message["op"] == "open" and self.flow_run_id is None:
            self.lose("the flow run could not be created")

    def lose(self, reason: str) -> None:
        if self.lost is None:
            self.lost = reason
            reply({"op": "lost", "reason": reason})

    async def open(self, message: Message) -> None:
        from prefect.flows import Flow
        from prefect.settings import PREFECT_UI_URL
        from prefect.states import Running
        flow: Flow = Flow(fn=_agentv_eval, name="agentv-eval")
        run = await self.client.create_flow_run(flow, name=message["name"],
                                                parameters=message["parameters"],
                                                tags=message["tags"], state=Running())
        self.flow_run_id = run.id
        ui = PREFECT_UI_URL.value()
        reply({"op": "opened", "id": str(run.id),
               "url": f"{ui}/flow-runs/flow-run/{run.id}" if ui else None})

    async def task(self, message: Message) -> None:
        from prefect.states import Running
        end = self.known_ends.pop(message["id"], None)
        await self.client.create_task_run(_stage_task(message["name"]), self.flow_run_id,
                                          message["id"],
                                          id=message["id"], name=message["run_name"],
                                          state=_task_state(end) if end else Running())

    async def state(self, message: Message) -> None:
        await self.client.set_task_run_state(message["id"], _task_state(message), force=True)

    async def artifact(self, message: Message) -> None:
        from agentv.flows.prefect.artifact_api import create_artifact
        from agentv.flows.prefect.artifact_spec import Artifact
        made = await create_artifact(Artifact(**message["spec"]), self.flow_run_id,
                                     message.get("task"), self.client)
        if "seq" in message:
            reply({"op": "artifact", "seq": message["seq"], "id": str(made)})

    async def log(self, message: Message) -> None:
        from prefect.client.schemas.actions import LogCreate
        await self.client.create_logs([LogCreate.model_validate({
            "name": "agentv", "level": message["level"], "message": message["message"],
            "timestamp": datetime.now(timezone.utc), "flow_run_id": self.flow_run_id,
            "task_run_id": message.get("task")})])

    async def final(self, message: Message) -> None:
        from prefect.states import Completed, Failed
        self.ended = True
        if message["tags"]:
            run = await self.client.read_flow_run(self.flow_run_id)
            await self.client.update_flow_run(self.flow_run_id,
                                              tags=sorted({*run.tags, *message["tags"]}))
        state: Any = (Failed(message=message["message"]) if message["failed"] else
                 Completed(name=message["name"] or "Completed", message=message["message"]))
        await self.client.set_flow_run_state(self.flow_run_id, state, force=True)

    async def crashed(self, message: Message) -> None:
        from prefect.states import Crashed
        await self.client.set_flow_run_state(
            self.flow_run_id, Crashed(message="the agentv process ended before its run did"),
            force=True)


def _task_state(end: Message) -> Any:
    from prefect.states import Completed, Failed
    return Failed(message=end["message"]) if end["failed"] else Completed()


def _agentv_eval() -> None:
    """The flow whose runs the recorder records (its function runs in the agentv process)."""


def _agentv_stage() -> None:
    """A stage whose task runs the recorder records."""


@functools.lru_cache(maxsize=None)
def _stage_task(name: str) -> Any:
    """The task whose runs are the stage ``name``'s (made once per stage)."""
    from prefect.tasks import Task
    task: Task = Task(fn=_agentv_stage, name=name)
    task.task_key = f"agentv-{name}"
    return task


def reply(message: Message) -> None:
    """Answer the run (gone already, its run is still recorded: the answer is dropped)."""
    try:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()
    except (BrokenPipeError, OSError):
        pass


def _read_into(inbox: Inbox, loop: asyncio.AbstractEventLoop) -> None:
    """stdin's lines, parsed, into ``inbox`` (then a None: the input ended)."""
    for line in sys.stdin.buffer:
        loop.call_soon_threadsafe(inbox.put, json.loads(line))
    loop.call_soon_threadsafe(inbox.put, None)


async def _main() -> None:
    from prefect.client.orchestration import get_client
    inbox = Inbox()
    threading.Thread(target=_read_into, args=(inbox, asyncio.get_running_loop()),
                     daemon=True).start()
    async with get_client() as client:
        await Recorder(client).serve(inbox)


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the run stops; its recorder finishes
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    warnings.simplefilter("ignore")  # Prefect's deprecation notes are not the run's
    asyncio.run(_main())
    gc.freeze()  # the exit spares a collection of every object Prefect made (~0.4 s)


if __name__ == "__main__":
    main()
