"""AgentV 4.42.4's trace envelope of one test (``outputs/trace.json``, ``agentv.trace.v1``):
its ``eval`` identity, ``projection_identity``, and an OTLP/OpenInference span tree — the
``invoke_agent`` root (the transcript's messages as its events), a ``chat`` span per
assistant message and an ``execute_tool`` span per tool call — then its source, capture
policy, conversion warnings, artifact paths and the graders' scores. Every id is AgentV's
hash of the same values (sha256 of the parts joined by NUL), so the same result gets the
same ids."""
from __future__ import annotations

import hashlib
import json
import math
from datetime import datetime, timezone
from typing import Any
from urllib.parse import quote

SCHEMA = "agentv.trace.v1"
IDENTITY = "agentv.projection_identity.v1"
POLICY = {"tool_arguments": "metadata", "tool_results": "metadata",
          "message_text": "metadata", "screenshots": "none", "thinking": "none"}



def js(value: Any) -> str:
    """A hash part as JavaScript's ``JSON.stringify`` (a text as it is; 1.0 is ``1``)."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""  # JSON.stringify(undefined) joins as an empty part
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def hash_hex(parts: list[Any], length: int) -> str:
    return hashlib.sha256("\0".join(js(p) for p in parts).encode()).hexdigest()[:length]


def parse_ms(value: Any) -> int | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    moment = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    return math.floor(moment.timestamp() * 1000 + 0.5)


def nanos(ms: float) -> str:
    return str(math.floor(ms + 0.5) * 1_000_000)


def iso(ms: float) -> str:
    moment = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def now_iso() -> str:
    return iso(datetime.now(timezone.utc).timestamp() * 1000)


def number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def usage_attributes(usage: Any) -> dict[str, Any]:
    if not isinstance(usage, dict):
        return {}
    pairs = (("gen_ai.usage.input_tokens", "input"), ("gen_ai.usage.output_tokens", "output"),
             ("gen_ai.usage.cache_read.input_tokens", "cached"),
             ("gen_ai.usage.reasoning.output_tokens", "reasoning"),
             ("llm.token_count.prompt", "input"), ("llm.token_count.completion", "output"))
    return {k: usage[u] for k, u in pairs if usage.get(u) is not None}


def _timing(item: dict[str, Any], start: float, end: float) -> tuple[float, float]:
    given = parse_ms(item.get("start_time"))
    begin: float = start if given is None else given
    ended = parse_ms(item.get("end_time"))
    duration = item.get("duration_ms")
    finish: float = ended if ended is not None else (
        begin + duration if isinstance(duration, (int, float)) else end)
    return begin, max(begin, finish)


def _span(trace_id: str, span_id: str, parent: str | None, name: str, times: tuple[float, float],
          status: dict[str, Any], attributes: dict[str, Any],
          events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"trace_id": trace_id, "span_id": span_id, "parent_span_id": parent, "name": name,
            "kind": "INTERNAL", "start_time_unix_nano": nanos(times[0]),
            "end_time_unix_nano": nanos(times[1]), "status": status,
            "attributes": {k: v for k, v in attributes.items() if v is not None},
            "events": events or []}


def _root(record: dict[str, Any], ids: dict[str, Any], messages: list[dict[str, Any]],
          times: tuple[float, float]) -> dict[str, Any]:
    error = record.get("error")
    attributes = {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "agentv",
        "gen_ai.agent.name": record.get("target"), "openinference.span.kind": "AGENT",
        "agentv.test_id": record.get("test_id"), "agentv.target": record.get("target"),
        "agentv.suite": record.get("suite"), "agentv.category": record.get("category"),
        "agentv.eval_path": ids["eval_path"], "agentv.run_id": ids["run_id"],
        "agentv.attempt": 0, "agentv.execution_status": record.get("execution_status"),
        "agentv.failure_stage": record.get("failure_stage"),
        "agentv.failure_reason_code": record.get("failure_reason_code"),
        "agentv.trace.duration_ms": record.get("duration_ms"),
        "agentv.trace.cost_usd": record.get("cost_usd"),
        **usage_attributes(record.get("token_usage"))}
    events: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        start = parse_ms(message.get("start_time"))
        events.append({"name": "agentv.transcript.message",
                       **({"time_unix_nano": nanos(start)} if start is not None else {}),
                       "attributes": {"agentv.transcript.message.index": index,
                                      "agentv.transcript.message": message}})
    if error:
        events.append({"name": "exception", "time_unix_nano": nanos(times[1]),
                       "attributes": {"exception.message": error}})
    status = {"code": "ERROR", "message": error} if error or record.get(
        "execution_status") == "execution_error" else {"code": "OK"}
    return _span(ids["trace_id"], ids["root_span_id"], None,
                 f"invoke_agent {record.get('target')}", times,
                 {k: v for k, v in status.items() if v is not None}, attributes, events)


def _chat_spans(record: dict[str, Any], ids: dict[str, Any], messages: list[dict[str, Any]],
                times: tuple[float, float], provider: str, warnings: list) -> list[dict[str, Any]]:
    entries = [(i, m) for i, m in enumerate(messages) if m.get("role") == "assistant"]
    if not entries and record.get("candidate_answer"):
        entries = [(0, {"role": "assistant", "content": record["candidate_answer"]})]
    trace_id, spans = ids["trace_id"], []
    for ordinal, (index, message) in enumerate(entries):
        model = (message.get("metadata") or {}).get("model")
        model = model if isinstance(model, str) else record.get("target")
        chat_id = hash_hex([trace_id, "chat", index, ordinal], 16)
        chat_times = _timing(message, *times)
        usage = message.get("token_usage") or (
            record.get("token_usage") if ordinal == len(entries) - 1 else None)
        spans.append(_span(trace_id, chat_id, ids["root_span_id"], f"chat {model}", chat_times,
                           {"code": "OK"}, {
            "gen_ai.operation.name": "chat", "gen_ai.provider.name": provider,
            "gen_ai.request.model": model, "gen_ai.response.model": model,
            "openinference.span.kind": "LLM", "agentv.message.index": index,
            "agentv.turn_index": ordinal, **usage_attributes(usage),
            **({"gen_ai.output.messages": message["content"]} if "content" in message
               else {})}))
        for number_, call in enumerate(message.get("tool_calls") or []):
            spans.append(_tool_span(record, ids, call, index, number_, chat_id, chat_times,
                                    warnings))
    return spans


def _tool_span(record: dict[str, Any], ids: dict[str, Any], call: dict[str, Any], index: int,
               number_: int, chat_id: str, chat_times: tuple[float, float],
               warnings: list) -> dict[str, Any]:
    span_id = hash_hex([ids["trace_id"], "tool", index, number_, call.get("tool")], 16)
    call_id = call.get("id") or "agentv-tool-" + hash_hex(
        [record.get("test_id"), record.get("target"), index, number_], 12)
    if not call.get("id"):
        warnings.append({"code": "missing_tool_call_id", "severity": "warning",
                         "span_id": span_id,
                         "source_ref": {"event_id": f"message-{index}-tool-{number_}"},
                         "message": "Deterministic tool call id generated from source order."})
    failed = call.get("status") in ("error", "timeout", "cancelled")
    return _span(ids["trace_id"], span_id, chat_id, f"execute_tool {call.get('tool')}",
                 _timing(call, *chat_times),
                 {"code": "ERROR", "message": call["status"]} if failed else {"code": "OK"}, {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": call.get("tool"),
        "gen_ai.tool.call.id": call_id, "openinference.span.kind": "TOOL",
        "tool.name": call.get("tool"), "tool.id": call_id, "agentv.message.index": index,
        "agentv.tool.index": number_,
        "agentv.generated_tool_call_id": None if call.get("id") else True,
        "gen_ai.tool.call.arguments": call.get("input"),
        "gen_ai.tool.call.result": call.get("output")})


def projection_identity(dims: dict[str, Any]) -> dict[str, Any]:
    """AgentV's projection identity: the key of its dimensions and the key's sha256."""
    order = ("projection_format", "projection_version", "run_id", "suite", "eval_path",
             "test_id", "target", "source_target", "attempt", "variant", "envelope_id",
             "trace_id", "root_span_id")
    key = IDENTITY + ":" + "|".join(
        f"{k}={'~' if dims.get(k) is None else quote(js(dims[k]), safe=chr(39) + '-_.!~*()')}"
        for k in order)
    out: dict[str, Any] = {
        "schema_version": IDENTITY,
        "id": "agentv-prj-" + hashlib.sha256(key.encode()).hexdigest()[:32], "key": key,
        "dimensions": {k: dims.get(k) for k in order[2:] + order[:2]
                       if dims.get(k) is not None or k == "variant"}}
    if not dims.get("suite") and not dims.get("eval_path"):
        out["issues"] = [{"code": "missing_suite_or_eval_path", "severity": "warning",
                          "field": "suite/evalPath", "message": "Projection identity is more "
                          "portable when at least one of suite or evalPath is present."}]
    return out


def _scores(record: dict[str, Any], root: str) -> list[dict[str, Any]] | None:
    scores = [s for s in record.get("scores") or [] if isinstance(s, dict)]
    if not scores:
        return None
    sources = {"code-grader": "code", "llm-grader": "llm"}
    return [{k: v for k, v in {
        "name": s.get("name"), "type": s.get("type"), "score": s.get("score"),
        "weight": s.get("weight"), "verdict": s.get("verdict"),
        "source": sources.get(str(s.get("type")), "agentv"),
        "evaluated_at": s.get("ended_at") or s.get("started_at") or record.get("timestamp"),
        "target_span_id": root,
        "evidence": {k: v for k, v in {"span_ids": [root], "assertions": [
            {k: v for k, v in a.items() if k in ("text", "passed", "evidence")}
            for a in s.get("assertions") or [] if isinstance(a, dict)],
            "details": s.get("details")}.items() if v is not None}}.items()
        if v is not None} for s in scores]


def envelope(record: dict[str, Any], messages: list[dict[str, Any]], provider: str | None,
             eval_path: str | None, run_id: str) -> dict[str, Any]:
    """The ``outputs/trace.json`` of a result record and the messages of its trace."""
    trace_id = hash_hex(["execution-trace", record.get("timestamp"), record.get("suite"),
                         record.get("test_id"), record.get("target"), run_id], 32)
    ids = {"trace_id": trace_id, "root_span_id": hash_hex([trace_id, "root"], 16),
           "eval_path": eval_path, "run_id": run_id}
    start = parse_ms(record.get("start_time")) or parse_ms(record.get("timestamp")) or 0
    times = _timing({**record, "start_time": None}, start, start)  # AgentV's root times
    metadata = {k: v for k, v in (("provider", provider), ("target", record.get("target")),
                                  ("eval_case_id", record.get("test_id"))) if v}
    source_provider = provider or record.get("target")
    warnings: list[dict[str, Any]] = []
    spans = [_root(record, ids, messages, times),
             *_chat_spans(record, ids, messages, times, str(source_provider), warnings)]
    artifact_id = "execution-trace-" + hash_hex(
        [trace_id, record.get("timestamp"), record.get("score")], 20)
    identity = projection_identity({
        "run_id": run_id, "suite": record.get("suite"), "eval_path": eval_path,
        "test_id": record.get("test_id"), "target": record.get("target"),
        "source_target": record.get("target"), "attempt": 0, "variant": None,
        "envelope_id": artifact_id, "trace_id": trace_id, "root_span_id": ids["root_span_id"],
        "projection_format": "execution_trace", "projection_version": SCHEMA})
    answered = bool(record.get("candidate_answer")) or bool(record.get("error"))
    out: dict[str, Any] = {
        "schema_version": SCHEMA, "artifact_id": artifact_id, "created_at": now_iso(),
        "eval": {k: v for k, v in {
            "eval_path": eval_path, "suite": record.get("suite"),
            "test_id": record.get("test_id"), "target": record.get("target"),
            "source_target": record.get("target"), "attempt": 0, "variant": None,
            "run_id": run_id, "category": record.get("category"),
            "experiment": "default"}.items() if v is not None or k == "variant"},
        "projection_identity": identity,
        "export_metadata": {"duplicate_policy": "update", **(
            {"identity_warnings": identity["issues"]} if identity.get("issues") else {})},
        "trace": {"format": "otlp_openinference_spans", "trace_id": trace_id,
                  "root_span_id": ids["root_span_id"],
                  "resource": {"attributes": {"service.name": "agentv"}},
                  "scope": {"name": "agentv"}, "spans": spans},
        "source": {"kind": "agentv_run", "path": "index.jsonl", "provider": source_provider,
                   "format": "agentv_result", "version": "1",
                   **({"metadata": metadata} if metadata else {})},
        "capture": {"content": "full", "redaction_level": "none", "redacted_fields": [],
                    "policy": dict(POLICY)}}
    if warnings:
        out["conversion_warnings"] = warnings
    out["artifacts"] = {"trace_path": "outputs/trace.json", **(
        {"answer_path": "outputs/answer.md", "response_path": "outputs/response.md"}
        if answered else {}), **({"transcript_path": "outputs/transcript.jsonl"}
                                 if answered or messages else {})}
    scores = _scores(record, str(ids["root_span_id"]))
    if scores:
        out["scores"] = scores
    return out
