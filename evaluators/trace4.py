"""AgentV 4.42.4's trace of an answer, as its code graders read it (``trace``,
``trace_summary`` and ``messages`` of the stdin payload; ``evaluators.code.grader_payload``).

- ``messages``: the input's messages, then the answer's (a text answer is one assistant
  message); the answer's alone when it already holds the whole transcript (it has a user or
  system message) or starts by repeating the one input message.
- ``trace_summary`` counts the answer's own messages: tool calls by name (``event_count``:
  all of them), assistant messages (``llm_call_count``), and the tools' durations when any
  call reported one.
- ``trace``: the summary, the messages, and one event per message, per tool call (and per
  tool result, when the call has an output) and for the final response; then the usage, cost
  and duration the agent reported, and ``metadata`` (provider, target, test id).
"""
from __future__ import annotations

from typing import Any

from agentv.evaluators.base import EvalContext


def answer_messages(ctx: EvalContext) -> list[dict[str, Any]]:
    return ctx.output_messages or [{"role": "assistant", "content": ctx.candidate_answer}]


def trace_messages(ctx: EvalContext) -> list[dict[str, Any]]:
    inputs, outputs = ctx.input_messages, answer_messages(ctx)
    if any(m.get("role") in ("user", "system") for m in outputs):
        return outputs
    if len(inputs) == 1 and _same(inputs[0], outputs[0]):
        return outputs
    return [*inputs, *outputs]


def trace_summary(ctx: EvalContext) -> dict[str, Any]:
    counts: dict[str, int] = {}
    durations: dict[str, list[float]] = {}
    messages = answer_messages(ctx)
    for call in (c for m in messages for c in m.get("tool_calls") or []):
        counts[call.get("tool")] = counts.get(call.get("tool"), 0) + 1
        if isinstance(call.get("duration_ms"), (int, float)):
            durations.setdefault(call.get("tool"), []).append(call["duration_ms"])
    summary: dict[str, Any] = {
        "event_count": sum(counts.values()), "tool_calls": counts, "error_count": 0,
        "llm_call_count": sum(1 for m in messages if m.get("role") == "assistant")}
    if durations:
        summary["tool_durations"] = durations
    return summary


def trace(ctx: EvalContext) -> dict[str, Any]:
    messages = trace_messages(ctx)
    out: dict[str, Any] = {**trace_summary(ctx), "messages": messages,
                           "events": events(messages, ctx.candidate_answer)}
    usage = ctx.usage
    if usage is not None and (usage.input_tokens is not None or usage.output_tokens is not None):
        out["token_usage"] = token_usage(ctx)
    if usage is not None and usage.cost_usd is not None:
        out["cost_usd"] = usage.cost_usd
    if ctx.latency_ms is not None:
        out["duration_ms"] = duration_ms(ctx)
    out["metadata"] = {k: v for k, v in (("provider", ctx.target_provider),
                                         ("target", ctx.target), ("eval_case_id", ctx.eval_id))
                       if v}
    return out


def duration_ms(ctx: EvalContext) -> int | float | None:
    """Whole milliseconds, as 4.42.4 measures them (a reported duration kept as it is)."""
    latency = ctx.latency_ms
    return round(latency) if isinstance(latency, float) else latency


def token_usage(ctx: EvalContext) -> dict[str, Any] | None:
    usage = ctx.usage
    if usage is None:
        return None
    out = {"input": usage.input_tokens or 0, "output": usage.output_tokens or 0}
    if usage.cached_tokens is not None:
        out["cached"] = usage.cached_tokens
    return out


def events(messages: list[dict[str, Any]], final_output: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        parent = f"message-{index}"
        out.append({"event_id": parent, "ordinal": len(out), "type": "message",
                    "message": _message(message), "metadata": {"message_index": index}})
        for number, call in enumerate(message.get("tool_calls") or []):
            out.extend(_tool_events(call, parent, index, number, len(out)))
    last = next((i for i in range(len(messages) - 1, -1, -1)
                 if messages[i].get("role") == "assistant"), None)
    if last is not None:
        out.append({"event_id": "final-response", "parent_event_id": f"message-{last}",
                    "ordinal": len(out), "type": "final_response",
                    "message": {**_message(messages[last]), "content": final_output},
                    "metadata": {"message_index": last}})
    return out


def _tool_events(call: dict[str, Any], parent: str, index: int, number: int,
                 ordinal: int) -> list[dict[str, Any]]:
    event_id, status = f"{parent}-tool-{number}", call.get("status") or "ok"
    where = {"message_index": index, "tool_index": number}
    tool = {k: v for k, v in (("name", call.get("tool")), ("call_id", call.get("id")),
                              ("input", call.get("input")), ("output", call.get("output")))
            if v is not None}
    made = [{"event_id": event_id, "parent_event_id": parent, "ordinal": ordinal,
             "type": "tool_call", "tool": {**tool, "status": status}, "metadata": where}]
    if call.get("output") is not None:
        result = {k: v for k, v in tool.items() if k != "input"}
        made.append({"event_id": f"{event_id}-result", "parent_event_id": event_id,
                     "ordinal": ordinal + 1, "type": "tool_result",
                     "tool": {**result, "status": status}, "metadata": where})
    return made


def _message(message: dict[str, Any]) -> dict[str, Any]:
    return {k: message[k] for k in ("role", "name", "content", "metadata") if k in message}


def _same(first: dict[str, Any], second: dict[str, Any]) -> bool:
    return first.get("role") == second.get("role") and first.get("content") == \
        second.get("content")
