"""AgentV 4.42.4's ``outputs/transcript.jsonl`` (``agentv.transcript.v1``): one line per
message of a trace envelope (``tasks.results.run_folder_trace``), each with the transcript's
token usage, duration and cost, its capture state, the span it came from (a chat span for an
assistant message, else the root), its tool calls with their spans, and the envelope's
source — AgentV's projection of the envelope, read back from the spans as AgentV reads it."""
from __future__ import annotations

from typing import Any

from agentv.tasks.results.run_folder_trace import SCHEMA, iso, number

TRANSCRIPT = "agentv.transcript.v1"
_STATUSES = ("ok", "error", "timeout", "cancelled", "unknown")


def _ms(nanos: str) -> int:
    return int(nanos) // 1_000_000


def _duration(span: dict[str, Any]) -> int | float | None:
    start, end = int(span["start_time_unix_nano"]), int(span["end_time_unix_nano"])
    return number((end - start) / 1_000_000) if end >= start else None


def _ref(env: dict[str, Any], span_id: str | None = None,
         parent: str | None = None) -> dict[str, Any]:
    trace = env["trace"]
    out = {"schema_version": SCHEMA, "artifact_id": env["artifact_id"],
           "trace_id": trace["trace_id"], "span_id": span_id or trace["root_span_id"]}
    return out | ({"parent_span_id": parent} if parent else {})


def _ordered(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """AgentV's span order: by start, a parent before its child, then by end and id."""
    import functools

    def compare(a: dict[str, Any], b: dict[str, Any]) -> int:
        for key in ("start_time_unix_nano",):
            if int(a[key]) != int(b[key]):
                return -1 if int(a[key]) < int(b[key]) else 1
        if a["span_id"] == b.get("parent_span_id"):
            return -1
        if b["span_id"] == a.get("parent_span_id"):
            return 1
        if int(a["end_time_unix_nano"]) != int(b["end_time_unix_nano"]):
            return -1 if int(a["end_time_unix_nano"]) < int(b["end_time_unix_nano"]) else 1
        return (a["span_id"] > b["span_id"]) - (a["span_id"] < b["span_id"])
    return sorted(spans, key=functools.cmp_to_key(compare))


def _kind(span: dict[str, Any], operation: str, kind: str) -> bool:
    attributes = span["attributes"]
    return attributes.get("gen_ai.operation.name") == operation or \
        attributes.get("openinference.span.kind") == kind


def _tool_projections(env: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for span in _ordered(env["trace"]["spans"]):
        if not _kind(span, "execute_tool", "TOOL"):
            continue
        attributes = span["attributes"]
        item = {"tool": attributes.get("gen_ai.tool.name") or attributes.get("tool.name"),
                "input": attributes.get("gen_ai.tool.call.arguments"),
                "output": attributes.get("gen_ai.tool.call.result"),
                "id": attributes.get("gen_ai.tool.call.id") or attributes.get("tool.id")
                or span["span_id"],
                "status": "error" if span["status"]["code"] == "ERROR" else "ok",
                "start_time": iso(_ms(span["start_time_unix_nano"])),
                "end_time": iso(_ms(span["end_time_unix_nano"])),
                "duration_ms": _duration(span),
                "trace": _ref(env, span["span_id"], span.get("parent_span_id"))}
        out.append({k: v for k, v in item.items() if v is not None})
    return out


def _tool_call(call: dict[str, Any], projection: dict[str, Any] | None) -> dict[str, Any]:
    seen = projection or {}
    status = seen.get("status") or {"timeout": "error", "cancelled": "error"}.get(
        call.get("status") or "", call.get("status"))
    out: dict[str, Any] = {"tool": seen.get("tool") or call.get("tool")}
    for key in ("input", "output"):
        if key in call or key in seen:
            out[key] = call[key] if key in call else seen.get(key)
    for key in ("id", "status", "start_time", "end_time", "duration_ms", "trace"):
        value = status if key == "status" else call.get(key) or seen.get(key)
        if key == "duration_ms":
            value = call[key] if call.get(key) is not None else seen.get(key)
        if value is not None and value != "":
            out[key] = value
    return out


def _calls(message: dict[str, Any], projections: list[dict[str, Any]],
           used: set[int]) -> list[dict[str, Any]] | None:
    calls = [c for c in message.get("tool_calls") or [] if isinstance(c.get("tool"), str)]
    if not calls:
        return None
    out = []
    for call in calls:
        call = {k: v for k, v in call.items() if k != "status" or v in _STATUSES}
        found = next((i for i, p in enumerate(projections) if i not in used and (
            p.get("id") == call["id"] if call.get("id") and p.get("id")
            else p.get("tool") == call["tool"])), None)
        if found is not None:
            used.add(found)
        out.append(_tool_call(call, projections[found] if found is not None else None))
    return out


def _messages(env: dict[str, Any]) -> list[dict[str, Any]]:
    """The transcript's messages: the spans' transcript events by index (AgentV's order)."""
    entries: list[tuple[int, dict[str, Any]]] = []
    for span in _ordered(env["trace"]["spans"]):
        for event in span.get("events") or []:
            attributes = event.get("attributes") or {}
            message = attributes.get("agentv.transcript.message")
            if event.get("name") == "agentv.transcript.message" and isinstance(
                    message, dict) and isinstance(message.get("role"), str):
                index = attributes.get("agentv.transcript.message.index")
                entries.append((index if isinstance(index, int) else len(entries), message))
    if not entries:  # no events: the chat spans' answers
        entries = [(span["attributes"].get("agentv.message.index", n), {
            "role": "assistant", "content": span["attributes"].get("gen_ai.output.messages")})
            for n, span in enumerate(s for s in _ordered(env["trace"]["spans"])
                                     if _kind(s, "chat", "LLM"))]
    return [m for _, m in sorted(entries, key=lambda e: e[0])]


def _summary(env: dict[str, Any]) -> dict[str, Any]:
    root = next((s for s in env["trace"]["spans"]
                 if s["span_id"] == env["trace"]["root_span_id"]), None)
    if root is None:
        return {}
    attributes = root["attributes"]
    usage = None
    if isinstance(attributes.get("gen_ai.usage.input_tokens"), (int, float)) and \
            isinstance(attributes.get("gen_ai.usage.output_tokens"), (int, float)):
        usage = {k: attributes.get(a) for k, a in (
            ("input", "gen_ai.usage.input_tokens"), ("output", "gen_ai.usage.output_tokens"),
            ("cached", "gen_ai.usage.cache_read.input_tokens"),
            ("reasoning", "gen_ai.usage.reasoning.output_tokens"))
            if attributes.get(a) is not None}
    duration = attributes.get("agentv.trace.duration_ms")
    return {"token_usage": usage, "cost_usd": attributes.get("agentv.trace.cost_usd"),
            "duration_ms": duration if isinstance(duration, (int, float)) else _duration(root),
            "start_time": iso(_ms(root["start_time_unix_nano"]))}


def _source(env: dict[str, Any], summary: dict[str, Any]) -> dict[str, Any]:
    source, metadata = env["source"], env["source"].get("metadata") or {}
    session = next((metadata[k] for k in ("provider_session_id", "session_id",
                                          "conversation_id")
                    if isinstance(metadata.get(k), str) and metadata[k]), None)
    out = {"kind": source.get("kind"), "provider": source.get("provider") or env["eval"]["target"],
           "session_id": session or env["eval"].get("run_id") or env["eval"]["test_id"],
           "path": source.get("path"), "format": source.get("format"),
           "model": metadata.get("model") or None,
           "timestamp": summary.get("start_time") or env["created_at"],
           "cwd": metadata.get("cwd") or None, "version": source.get("version"),
           "metadata": source.get("metadata")}
    return {k: v for k, v in out.items() if v is not None}


def transcript_lines(env: dict[str, Any], test_id: str | None,
                     target: str | None) -> list[dict[str, Any]]:
    """The lines of ``outputs/transcript.jsonl`` of an envelope."""
    summary = _summary(env)
    capture = {k: env["capture"][k] for k in ("content", "redaction_level", "redacted_fields")
               if k in env["capture"]}
    refs = {s["attributes"]["agentv.message.index"]: _ref(env, s["span_id"],
                                                          s.get("parent_span_id"))
            for s in env["trace"]["spans"] if _kind(s, "chat", "LLM")
            and isinstance(s["attributes"].get("agentv.message.index"), int)}
    projections, used = _tool_projections(env), set[int]()
    source = _source(env, summary)
    lines = []
    for index, message in enumerate(_messages(env)):
        fields = {k: message.get(k) for k in ("role", "name", "content", "start_time",
                                              "end_time", "duration_ms", "metadata",
                                              "token_usage")}
        line = {"schema_version": TRANSCRIPT, "test_id": test_id or env["eval"]["test_id"],
                "target": target or env["eval"]["target"], "message_index": index, **fields,
                "tool_calls": _calls(message, projections, used),
                "transcript_token_usage": summary.get("token_usage"),
                "transcript_duration_ms": summary.get("duration_ms"),
                "transcript_cost_usd": summary.get("cost_usd"), "capture": capture,
                "trace": refs.get(index) or _ref(env), "source": source}
        lines.append({k: v for k, v in line.items() if v is not None})
    return lines
