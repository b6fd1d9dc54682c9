"""What an agent hands back, normalized: AgentV's JSON output convention and tool-call traces.

An agent may answer with plain text or with one JSON object (AgentV's mock-agent
convention): ``text`` and/or ``output_messages`` (``role``, ``content``, ``tool_calls``), an
optional ``trace`` (list of events), ``token_usage`` ``{input, output}`` or ``usage``,
``cost_usd``, ``duration_ms``. Without an explicit ``trace``, tool calls found in
``output_messages`` become the trace (AgentV: ``output_messages[].tool_calls[]``).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, TypeGuard

from agentv.providers.base import Usage
from agentv.providers.trace import (
    TraceEvent,
    event_from_dict,
    events_from_dicts,
    summarize,
    token_usage,
)

STRUCTURED_KEYS = ("text", "output_messages", "output", "trace")  # output: AgentV 4.x's


@dataclass
class AgentOutput:
    text: str
    output_messages: list[dict[str, Any]] | None = None
    trace: list[TraceEvent] | None = None
    usage: Usage | None = None
    duration_ms: float | None = None
    warning: str | None = None


def parse_output(raw: str, *, announced: bool = False) -> AgentOutput:
    """Plain text, or the JSON convention when the output is such an object. ``announced``
    (``output_format: json``): output that is not such an object is kept as text, with a
    warning."""
    stripped = raw.strip()
    if not (announced or stripped.startswith("{")):
        return AgentOutput(text=raw)
    try:
        obj = json.loads(stripped)
    except ValueError as err:
        warning = f"output is not valid JSON ({err}); using it as plain text" if announced else None
        return AgentOutput(text=raw, warning=warning)
    if isinstance(obj, dict) and any(k in obj for k in STRUCTURED_KEYS):
        return from_object(obj)
    warning = ("output is JSON but has none of text/output_messages/trace; using it as plain "
               "text") if announced else None
    return AgentOutput(text=raw, warning=warning)


def from_object(obj: dict[str, Any]) -> AgentOutput:
    messages = obj.get("output_messages", obj.get("output"))
    messages = [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else None
    if "text" in obj and obj["text"] is not None:
        text = obj["text"] if isinstance(obj["text"], str) else json.dumps(obj["text"])
    else:
        text = last_assistant_text(messages)
    trace = obj.get("trace")
    events = events_from_dicts(trace) if isinstance(trace, list) else trace_from_messages(messages)
    duration = obj.get("duration_ms")
    return AgentOutput(text=text, output_messages=messages or None, trace=events,
                       usage=usage_from(obj),
                       duration_ms=float(duration) if _is_num(duration) and duration >= 0 else None)


def usage_from(obj: dict[str, Any]) -> Usage | None:
    tokens, usage = _mapping(obj.get("token_usage")), _mapping(obj.get("usage"))
    inp = tokens.get("input", usage.get("input_tokens", usage.get("prompt_tokens")))
    out = tokens.get("output", usage.get("output_tokens", usage.get("completion_tokens")))
    cost = obj.get("cost_usd", usage.get("cost_usd"))
    cached = tokens.get("cached", usage.get("cached_tokens"))
    if inp is None and out is None and cost is None:
        return None
    return Usage(input_tokens=int(inp) if _is_num(inp) else None,
                 output_tokens=int(out) if _is_num(out) else None,
                 cost_usd=float(cost) if _is_num(cost) and cost >= 0 else None,
                 cached_tokens=int(cached) if _is_num(cached) else None)


def content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") or p.get("value") if isinstance(p, dict) else p for p in content]
        texts = [p for p in parts if isinstance(p, str)]
        if len(texts) == len(parts):
            return "\n".join(texts)
    return json.dumps(content, ensure_ascii=False)


def last_assistant_text(messages: list[dict[str, Any]] | None) -> str:
    for msg in reversed(messages or []):
        if msg.get("role") == "assistant" and msg.get("content") not in (None, "", []):
            return content_text(msg["content"])
    return ""


def trace_from_messages(messages: list[dict[str, Any]] | None) -> list[TraceEvent] | None:
    """Tool calls of ``output_messages`` (``tool_calls``, or AgentV's camelCase ``toolCalls``)
    as trace events (None when there are none): the one parser the record's trace_summary and
    the trace evaluators share. Results may sit on the call (``output``/``result``) or in a
    later ``role: tool`` message."""
    if not isinstance(messages, list):
        return None
    results = {m.get("tool_call_id"): m.get("content") for m in messages
               if isinstance(m, dict) and m.get("role") == "tool" and m.get("tool_call_id")}
    events = [tool_call_event(call, results)
              for m in messages if isinstance(m, dict)
              for call in (m.get("tool_calls") or m.get("toolCalls") or [])
              if isinstance(call, dict)]
    return events or None


def tool_call_event(call: dict[str, Any], results: dict[Any, Any] | None = None) -> TraceEvent:
    fn = _mapping(call.get("function"))
    args = next((call[k] for k in ("input", "arguments", "args") if k in call),
                fn.get("arguments"))
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            pass
    result = next((call[k] for k in ("output", "result") if k in call),
                  (results or {}).get(call.get("id")))
    known = {"tool", "name", "function", "input", "arguments", "args", "output", "result", "type"}
    event = {k: v for k, v in call.items() if k not in known}
    event.update(type="tool_call", name=call.get("tool") or call.get("name") or fn.get("name"),
                 arguments=args, result=result)
    return event_from_dict(event)


def _is_num(v: Any) -> TypeGuard[float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def trace_summary(trace: list[TraceEvent] | None, usage: Usage | None,
                  duration_ms: float | None = None,
                  output_messages: list[dict[str, Any]] | None = None
                  ) -> dict[str, Any] | None:
    """AgentV's ``trace_summary``: written whenever the target reported anything trace-like
    (a trace or output messages, token usage, cost, a duration). Provider-reported usage,
    cost and duration win over the trace's own sums (AgentV merges the provider's
    execution metrics over the span-derived ones)."""
    has_metrics = duration_ms is not None or (usage is not None and (
        usage.input_tokens is not None or usage.output_tokens is not None
        or usage.cost_usd is not None))
    if trace is None and output_messages is None and not has_metrics:
        return None
    summary = summarize(trace)
    if output_messages and not summary["llm_call_count"]:
        summary["llm_call_count"] = sum(1 for m in output_messages
                                        if isinstance(m, dict) and m.get("role") == "assistant")
    if usage is not None and (usage.input_tokens is not None or usage.output_tokens is not None):
        summary["token_usage"] = token_usage(usage.input_tokens or 0, usage.output_tokens or 0,
                                             usage.cached_tokens)
    if usage is not None and usage.cost_usd is not None:
        summary["cost_usd"] = round(usage.cost_usd, 8)
    if duration_ms is not None:
        summary["duration_ms"] = json_number(duration_ms)
    return summary


def json_number(value: float) -> int | float:
    """A whole number as an int (AgentV writes ``"duration_ms": 3420``)."""
    return int(value) if float(value).is_integer() else round(value, 3)
