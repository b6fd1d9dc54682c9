"""A stage of a run as plain data: its name in Prefect (a task run), the name of each of
its runs, and its function. The run's recording runs it: as a Prefect task inside the
flow run (flows/prefect/recording.py), or here with its task run mirrored to Prefect by the
recorder process (flows/prefect/mirror.py). And how a run ends in Prefect (``Final``)."""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from agentv.flows.prefect.scrubbed import scrub_errors


@dataclass(frozen=True)
class Stage:
    name: str
    fn: Callable[..., Awaitable[Any]]
    run_name: str | None = None

    def title(self, *args: Any) -> str:
        """This run's name (``run_name`` filled with the call's arguments)."""
        if self.run_name is None:
            return self.name
        bound = inspect.signature(self.fn).bind_partial(*args)
        return self.run_name.format(**bound.arguments)

    async def __call__(self, *args: Any) -> Any:
        return await self.fn(*args)


def stage(name: str, run_name: str | None = None) -> Callable[[Callable[..., Any]], Stage]:
    """Declare an async function a stage; its exceptions reach Prefect scrubbed."""
    def declare(fn: Callable[..., Awaitable[Any]]) -> Stage:
        return Stage(name, scrub_errors(fn), run_name)
    return declare


@dataclass(frozen=True)
class Final:
    """The flow run's final state: ``failed`` or completed, its name (None: Prefect's),
    message, the tags it adds and the outcome it carries."""
    failed: bool
    message: str
    name: str | None = None
    tags: tuple[str, ...] = ()
    outcome: dict[str, Any] = field(default_factory=dict)
