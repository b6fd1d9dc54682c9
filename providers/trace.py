"""The normalized trace model every provider produces, and its summary.

A trace is a list of events: tool calls (name, arguments, result, ok, start/end,
duration) and LLM calls (model, tokens, cost). Providers convert their native
formats (cli JSON output, codex events, mock ``trace`` setting) with
``events_from_dicts``; evaluators read the events; records carry ``summarize(trace)``.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class TraceEvent:
    type: str = "tool_call"  # tool_call | llm_call | message | error
    name: str | None = None  # tool name (tool_call) or model (llm_call)
    arguments: Any = None
    result: Any = None
    ok: bool = True
    start: str | float | None = None
    end: str | float | None = None
    duration_ms: float | None = None
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    text: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, {}) or k in ("type", "ok")}


_TYPE_ALIASES = {"tool": "tool_call", "toolcall": "tool_call", "tool_use": "tool_call",
                 "function_call": "tool_call", "llm": "llm_call", "model_call": "llm_call",
                 "generation": "llm_call"}


def event_from_dict(d: dict[str, Any]) -> TraceEvent:
    """Accepts the common spellings: {type, tool|name, input|args|arguments, output|result}."""
    kind = str(d.get("type") or ("tool_call" if (d.get("tool") or d.get("name")) else "message"))
    kind = _TYPE_ALIASES.get(kind.lower(), kind.lower())
    name = d.get("tool") or d.get("name") or d.get("toolName")
    args = next((d[k] for k in ("arguments", "args", "input") if k in d), None)
    result = next((d[k] for k in ("result", "output") if k in d), None)
    ok = d.get("ok")
    if ok is None:
        status = str(d.get("status", "")).lower()
        ok = not (d.get("error") or d.get("is_error") or status in ("error", "failed"))
    usage = d.get("usage") or {}
    known = {"type", "tool", "name", "toolName", "arguments", "args", "input", "result", "output",
             "ok", "status", "error", "is_error", "start", "start_time", "startTime", "end",
             "end_time", "endTime", "duration_ms", "durationMs", "model", "input_tokens",
             "output_tokens", "cost_usd", "usage", "text", "content"}
    return TraceEvent(
        type=kind, name=name, arguments=args, result=result, ok=bool(ok),
        start=d.get("start") or d.get("start_time") or d.get("startTime"),
        end=d.get("end") or d.get("end_time") or d.get("endTime"),
        duration_ms=_num(d.get("duration_ms", d.get("durationMs"))),
        model=d.get("model") or (name if kind == "llm_call" else None),
        input_tokens=d.get("input_tokens", usage.get("input_tokens", usage.get("prompt_tokens"))),
        output_tokens=d.get("output_tokens",
                            usage.get("output_tokens", usage.get("completion_tokens"))),
        cost_usd=_num(d.get("cost_usd", usage.get("cost_usd"))),
        text=d.get("text") if isinstance(d.get("text"), str) else None,
        extra={k: v for k, v in d.items() if k not in known},
    )


def events_from_dicts(items: list[Any] | None) -> list[TraceEvent]:
    return [i if isinstance(i, TraceEvent) else event_from_dict(i)
            for i in (items or []) if isinstance(i, (dict, TraceEvent))]


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def tool_calls(trace: list[TraceEvent] | None) -> list[TraceEvent]:
    return [e for e in (trace or []) if e.type == "tool_call"]


def summarize(trace: list[TraceEvent] | None) -> dict[str, Any]:
    """The trace part of AgentV's ``trace_summary``: ``event_count`` (tool calls),
    ``tool_names`` (sorted), ``tool_calls_by_name`` (in call order), ``error_count`` (failed
    calls and error events), ``llm_call_count``, per-tool ``tool_durations`` when known, and
    the trace's own token/cost/duration sums when it carries them."""
    trace = trace or []
    calls = tool_calls(trace)
    by_name: dict[str, int] = {}
    durations: dict[str, list[float]] = {}
    for e in calls:
        name = e.name or "unknown"
        by_name[name] = by_name.get(name, 0) + 1
        if e.duration_ms is not None:
            durations.setdefault(name, []).append(e.duration_ms)
    summary: dict[str, Any] = {
        "event_count": len(calls),
        "tool_names": sorted(by_name),
        "tool_calls_by_name": by_name,
        "error_count": sum(1 for e in trace if not e.ok or e.type == "error"),
        "llm_call_count": sum(1 for e in trace if e.type == "llm_call"),
    }
    if durations:
        summary["tool_durations"] = durations
    tokens_in = sum(e.input_tokens or 0 for e in trace)
    tokens_out = sum(e.output_tokens or 0 for e in trace)
    if tokens_in or tokens_out:
        summary["token_usage"] = token_usage(tokens_in, tokens_out)
    costs = [e.cost_usd for e in trace if e.cost_usd is not None]
    if costs:
        summary["cost_usd"] = round(sum(costs), 8)
    spans = [e.duration_ms for e in trace if e.duration_ms is not None]
    if spans:
        summary["duration_ms"] = round(sum(spans), 3)
    return summary


def token_usage(tokens_in: int, tokens_out: int, cached: int | None = None) -> dict[str, int]:
    """AgentV's ``{input, output, cached?}`` (plus agentv's ``total``)."""
    out = {"input": tokens_in, "output": tokens_out}
    if cached is not None:
        out["cached"] = cached
    return out | {"total": tokens_in + tokens_out}
