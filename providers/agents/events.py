"""What every agent CLI's event stream becomes: the answer, agentv's trace, token usage.

Each agent module (codex, claude, copilot, pi) turns its program's JSON lines into an
``AgentRun`` with the helpers here: ``json_events`` (one JSON object per line, each with the
time it was received), ``ToolCalls`` (a tool call opened by one event and closed by a later
one, with its duration; calls never closed are recorded as incomplete), ``iso``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Iterator

from agentv.providers.base import Usage
from agentv.providers.secrets import cut
from agentv.providers.trace import TraceEvent


class MalformedStream(ValueError):
    pass


@dataclass
class AgentRun:
    """One run of an agent program as its event stream told it."""
    text: str = ""
    trace: list[TraceEvent] = field(default_factory=list)
    usage: Usage | None = None
    failure: str | None = None  # the program's own message for a failed run
    model: str | None = None
    duration_ms: float | None = None  # as the program measured it, when it says
    warnings: list[str] = field(default_factory=list)

    def add_usage(self, inp: Any = 0, out: Any = 0, cached: Any = None,
                  cost: Any = None) -> None:
        u = self.usage or Usage(0, 0)
        u.input_tokens = (u.input_tokens or 0) + int(inp or 0)
        u.output_tokens = (u.output_tokens or 0) + int(out or 0)
        if cached is not None:
            u.cached_tokens = (u.cached_tokens or 0) + int(cached)
        if cost is not None:
            u.cost_usd = (u.cost_usd or 0.0) + float(cost)
        self.usage = u

    def llm_call(self, at: float, model: str | None = None, **fields: Any) -> TraceEvent:
        event = TraceEvent(type="llm_call", name=model or self.model, model=model or self.model,
                           end=iso(at), **fields)
        self.trace.append(event)
        return event


def json_events(lines: list[tuple[float, str]], program: str
                ) -> Iterator[tuple[float, dict[str, Any]]]:
    """(receive time, event) per non-empty line. Raises MalformedStream on a line that is
    not a JSON object, or when there is no event at all."""
    seen = 0
    for n, (at, line) in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            raise MalformedStream(f"line {n} of the event stream is not JSON: "
                                  f"{cut(line, 200)!r}") from None
        if not isinstance(event, dict):
            raise MalformedStream(f"line {n} of the event stream is not a JSON object")
        seen += 1
        yield at, event
    if not seen:
        raise MalformedStream(f"{program} printed no JSON events")


@dataclass
class _Open:
    at: float
    name: str
    arguments: Any
    extra: dict[str, Any]


class ToolCalls:
    """Tool calls by id: ``start`` when the program announces one, ``finish`` when its
    result arrives; ``close`` records those never finished as incomplete."""

    def __init__(self, run: AgentRun) -> None:
        self.run = run
        self._open: dict[str, _Open] = {}

    def start(self, call_id: Any, at: float, name: str, arguments: Any, **extra: Any) -> None:
        self._open.setdefault(str(call_id), _Open(at, name, arguments, extra))

    def known(self, call_id: Any) -> bool:
        return str(call_id) in self._open

    def finish(self, call_id: Any, at: float, result: Any, ok: bool, name: str | None = None,
               arguments: Any = None, **extra: Any) -> TraceEvent:
        opened = self._open.pop(str(call_id), None)
        started = opened.at if opened else None
        event = TraceEvent(
            type="tool_call", name=(opened.name if opened else None) or name,
            arguments=opened.arguments if opened and opened.arguments is not None else arguments,
            result=result, ok=bool(ok), start=iso(started) if started else None, end=iso(at),
            duration_ms=round((at - started) * 1000, 3) if started else None,
            extra={"id": str(call_id), **(opened.extra if opened else {}),
                   **{k: v for k, v in extra.items() if v is not None}})
        self.run.trace.append(event)
        return event

    def close(self, at: float) -> None:
        for call_id in list(self._open):
            self.finish(call_id, at, None, False, status="incomplete")


def mapping(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else ``{}``."""
    return value if isinstance(value, dict) else {}


def text_of(content: Any) -> str:
    """A content value (a string, or a list of ``{"type": "text", "text": …}`` parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text") or "") for p in content
                       if isinstance(p, dict) and p.get("type") in (None, "text"))
    return "" if content is None else json.dumps(content)


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds")
