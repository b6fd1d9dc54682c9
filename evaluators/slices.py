"""Slices of a ``SessionView`` (seed 002): ``session[ToolInvoked]``, ``session[PromptExecuted]``
and ``session[MyType]`` give a read-only ``SliceView`` with ``all()``, ``latest()`` and
``where(predicate)``.

``ToolInvoked`` and ``PromptExecuted`` are the trace's tool calls and LLM calls (they are
``TraceEvent``s of type ``tool_call`` / ``llm_call``, so a test can build them directly);
any other type selects the custom slice items a callable target returned with its output
(``TracedOutput(slices=[PlanStep(...)])``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Generic, Iterator, TypeVar

from agentv.providers.trace import TraceEvent

T = TypeVar("T")


@dataclass
class ToolInvoked(TraceEvent):
    """One tool call of the target (``name``, ``arguments``, ``result``, ``ok``, ...)."""

    type: str = "tool_call"


@dataclass
class PromptExecuted(TraceEvent):
    """One LLM call of the target (``model``, ``input_tokens``, ``output_tokens``, ...)."""

    type: str = "llm_call"


EVENT_SLICES: dict[type, str] = {ToolInvoked: "tool_call", PromptExecuted: "llm_call"}


class SliceView(Generic[T]):
    """Read-only items of one slice, oldest first."""

    __slots__ = ("_items",)

    def __init__(self, items: tuple[T, ...] = ()):
        self._items = tuple(items)

    def all(self) -> tuple[T, ...]:
        return self._items

    def latest(self) -> T | None:
        return self._items[-1] if self._items else None

    def where(self, predicate: Callable[[T], bool]) -> tuple[T, ...]:
        return tuple(item for item in self._items if predicate(item))

    def __iter__(self) -> Iterator[T]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"SliceView({list(self._items)!r})"


def select(events: tuple[TraceEvent, ...], items: tuple[Any, ...], key: type) -> SliceView:
    """The slice ``key`` of a session: trace events for the event types, else custom items."""
    kind = EVENT_SLICES.get(key)
    if kind is not None:
        return SliceView(tuple(e for e in events if e.type == kind))
    return SliceView(tuple(i for i in items if isinstance(i, key)))
