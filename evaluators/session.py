"""``SessionView``: a read-only view of what the target did (trace, usage, latency).

Trace and budget evaluators read this one view, built by ``session_from_context`` from
an ``EvalContext``: tool calls come from the normalized trace, or — when the trace has
none — from ``output_messages[].tool_calls`` (AgentV's primary wire format, with
``{tool, input, duration_ms}`` or OpenAI ``{function: {name, arguments}}`` items).
Token and cost totals prefer the provider's ``usage`` and fall back to trace sums.
``session[ToolInvoked]`` / ``session[PromptExecuted]`` / ``session[MyType]`` are the
seed's read-only slices (``evaluators.slices``); ``session_id`` names the case attempt.
"""
from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Iterator

from agentv.evaluators.slices import SliceView, select
from agentv.providers.agents.output import trace_from_messages
from agentv.providers.trace import TraceEvent

if TYPE_CHECKING:
    from agentv.evaluators.base import EvalContext
    from agentv.providers.base import Usage

READ_WORDS = frozenset({"read", "search", "get", "list", "fetch", "find", "grep", "glob", "view",
                        "ls", "cat", "open", "lookup", "query", "inspect", "show", "describe",
                        "retrieve", "browse", "check", "count", "stat", "head", "tail"})
WRITE_WORDS = frozenset({"write", "edit", "create", "update", "delete", "remove", "replace",
                         "insert", "save", "put", "post", "patch", "move", "rename", "run",
                         "exec", "execute", "send", "set", "apply", "commit", "push"})
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def is_read_only(tool_name: str) -> bool:
    """A read-only (exploration) tool: its name has a read verb and no write verb."""
    words = {w.lower() for w in _WORD.findall(tool_name or "")}
    return bool(words & READ_WORDS) and not words & WRITE_WORDS


@dataclass(frozen=True)
class SessionView:
    events: tuple[TraceEvent, ...] = ()
    usage: "Usage | None" = None
    latency_ms: float | None = None
    has_trace: bool = True  # False when the target reported neither trace nor tool calls
    session_id: str = ""  # a UUID naming the case attempt (target, sample, trial, attempt)
    slices: tuple[Any, ...] = ()  # custom slice items a callable target returned

    def __iter__(self) -> Iterator[TraceEvent]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)

    def __getitem__(self, key: str | type) -> Any:
        """``session[ToolInvoked]`` (or any slice type) → ``SliceView``; ``session["tool_call"]``
        → the events of that trace type."""
        if isinstance(key, str):
            return self.of_type(key)
        return self.slice(key)

    def slice(self, slice_type: type) -> SliceView:
        return select(self.events, self.slices, slice_type)

    def of_type(self, event_type: str) -> tuple[TraceEvent, ...]:
        return tuple(e for e in self.events if e.type == event_type)

    def tool_calls(self, name: str | None = None) -> tuple[TraceEvent, ...]:
        return tuple(e for e in self.events
                     if e.type == "tool_call" and (name is None or e.name == name))

    @property
    def llm_calls(self) -> tuple[TraceEvent, ...]:
        return self.of_type("llm_call")

    @property
    def input_tokens(self) -> int | None:
        return self._tokens("input_tokens")

    @property
    def output_tokens(self) -> int | None:
        return self._tokens("output_tokens")

    @property
    def total_tokens(self) -> int | None:
        parts = (self.input_tokens, self.output_tokens)
        return None if all(p is None for p in parts) else sum(p or 0 for p in parts)

    @property
    def cost_usd(self) -> float | None:
        if self.usage is not None and self.usage.cost_usd is not None:
            return float(self.usage.cost_usd)
        costs = [e.cost_usd for e in self.events if e.cost_usd is not None]
        return sum(costs) if costs else None

    @property
    def duration_ms(self) -> float | None:
        if self.latency_ms is not None:
            return float(self.latency_ms)
        durations = [d for d in (event_duration(e) for e in self.events) if d is not None]
        return sum(durations) if durations else None

    def exploration_ratio(self) -> float | None:
        calls = self.tool_calls()
        if not calls:
            return None
        return sum(1 for c in calls if is_read_only(c.name or "")) / len(calls)

    def _tokens(self, attr: str) -> int | None:
        reported = getattr(self.usage, attr, None) if self.usage is not None else None
        if reported is not None:
            return int(reported)
        values = [getattr(e, attr) for e in self.events if getattr(e, attr) is not None]
        return sum(int(v) for v in values) if values else None


EMPTY_SESSION = SessionView(has_trace=False)


def session_from_context(ctx: "EvalContext") -> SessionView:
    events = list(ctx.trace or [])
    has_trace = ctx.trace is not None
    if not any(e.type == "tool_call" for e in events):
        from_messages = message_tool_calls(ctx.output_messages)
        events.extend(from_messages)
        has_trace = has_trace or bool(from_messages)
    return SessionView(events=tuple(events), usage=ctx.usage, latency_ms=ctx.latency_ms,
                       has_trace=has_trace, session_id=attempt_id(ctx))


def attempt_id(ctx: "EvalContext") -> str:
    """A stable UUID for one case attempt, the same for every evaluator of that attempt."""
    key = f"agentv:{ctx.target}:{ctx.eval_id}:{ctx.trial}:{ctx.attempt}"
    return str(uuid.uuid5(uuid.NAMESPACE_URL, key))


def message_tool_calls(messages: list[dict[str, Any]] | None) -> list[TraceEvent]:
    """The tool calls of ``output_messages``, parsed exactly as the record's trace is."""
    return trace_from_messages(messages) or []


def event_duration(event: TraceEvent) -> float | None:
    if event.duration_ms is not None:
        return float(event.duration_ms)
    start, end = _instant(event.start), _instant(event.end)
    if start is None or end is None:
        return None
    return (end - start) * 1000.0


def _instant(value: Any) -> float | None:
    """Seconds since the epoch from a number (seconds) or an ISO-8601 timestamp."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None
