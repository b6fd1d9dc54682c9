"""``--otel-file FILE``: AgentV 4.42.4's OTLP JSON file of the run (its OtelTraceExporter
with the OTLP JSON file exporter): one ``resourceSpans`` entry (``service.name`` agentv,
scope agentv 1.0.0) holding, test after test, the spans in the order they end — each
message's ``execute_tool`` spans, its span (``chat <model>`` for an assistant message,
``gen_ai.message.<role>`` for the others), then the test's ``agentv.eval`` root with the
test's score, duration, cost, tokens and trace counts, and one event per grader. Ids are
random (OTel's); spans without a time of their own take the time they are written, as
AgentV's do. Content (answers, tool arguments and results) only with
``AGENTV_OTEL_CAPTURE_CONTENT=true``. The file is written at the end of the run, and not at
all when no test ran; every byte is scrubbed of secrets."""
from __future__ import annotations

import json
import os
import secrets
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

from agentv.evaluators.base import EvalContext
from agentv.evaluators.trace4 import trace_summary
from agentv.tasks.load.redact import redact
from agentv.tasks.results.run_folder_trace import parse_ms


def js_nanos(value: float) -> str:
    """A time in nanoseconds as JavaScript prints the double holding it."""
    return str(int(Decimal(repr(float(value)))))


def _time(iso: Any) -> str:
    ms = parse_ms(iso)
    return js_nanos(ms * 1_000_000) if ms is not None else js_nanos(time.time_ns())


def value(item: Any) -> dict[str, Any]:
    """An attribute value as OTLP JSON (AgentV's serializer)."""
    if isinstance(item, bool):
        return {"boolValue": item}
    if isinstance(item, str):
        return {"stringValue": item}
    if isinstance(item, int) or (isinstance(item, float) and item.is_integer()):
        return {"intValue": int(item)}
    if isinstance(item, float):
        return {"doubleValue": item}
    if isinstance(item, list):
        return {"arrayValue": {"values": [value(v) for v in item]}}
    return {"stringValue": str(item)}


def attributes(items: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": value(v)} for k, v in items.items() if v is not None]


def _content(item: Any) -> str:
    return item if isinstance(item, str) else json.dumps(item, ensure_ascii=False,
                                                         separators=(",", ":"))


class OtelFile:
    """The spans of each result record added, written to ``path`` by ``finish``."""

    def __init__(self, path: str | Path, capture: bool | None = None) -> None:
        self.path = Path(path).resolve()
        self.capture = os.environ.get("AGENTV_OTEL_CAPTURE_CONTENT") == "true" \
            if capture is None else capture
        self.spans: list[dict[str, Any]] = []

    def _span(self, trace_id: str, name: str, start: str, end: str,
              items: dict[str, Any], status: dict[str, Any] | None = None,
              events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        return {"traceId": trace_id, "spanId": secrets.token_hex(8), "name": name, "kind": 0,
                "startTimeUnixNano": start, "endTimeUnixNano": end,
                "attributes": attributes(items), "status": status or {"code": 0},
                "events": events or []}

    def add(self, record: dict[str, Any], messages: list[dict[str, Any]],
            outputs: list[dict[str, Any]] | None) -> None:
        """One test's spans: ``messages`` its trace's, ``outputs`` the answer's."""
        trace_id = secrets.token_hex(16)
        start = _time(record.get("start_time") or record.get("timestamp"))
        for message in messages:
            self.spans.extend(self._message(trace_id, message))
        ctx = EvalContext(eval_id=str(record.get("test_id") or ""), question="",
                          candidate_answer=str(record.get("candidate_answer") or ""),
                          output_messages=outputs or None)
        summary = trace_summary(ctx)
        given = record.get("token_usage")
        usage: dict[str, Any] = given if isinstance(given, dict) else {}
        root = {"gen_ai.operation.name": "evaluate", "gen_ai.system": "agentv",
                "agentv.test_id": record.get("test_id"), "agentv.target": record.get("target"),
                "agentv.suite": record.get("suite") or None, "agentv.score": record.get("score"),
                "agentv.output_text": (record.get("candidate_answer") or None)
                if self.capture else None,
                "agentv.trace.duration_ms": record.get("duration_ms"),
                "agentv.trace.cost_usd": record.get("cost_usd"),
                "agentv.trace.token_input": usage.get("input"),
                "agentv.trace.token_output": usage.get("output"),
                "agentv.trace.token_cached": usage.get("cached"),
                "agentv.trace.event_count": summary["event_count"],
                "agentv.trace.tool_names": ",".join(sorted(str(k) for k in
                                                           summary["tool_calls"])),
                "agentv.trace.llm_call_count": summary["llm_call_count"]}
        events = [{"name": f"agentv.grader.{s.get('name')}", "timeUnixNano": _time(None),
                   "attributes": attributes({"agentv.grader.score": s.get("score"),
                                             "agentv.grader.type": s.get("type"),
                                             "agentv.grader.verdict": s.get("verdict") or None})}
                  for s in record.get("scores") or [] if isinstance(s, dict)]
        error = record.get("error")
        status = {"code": 2, "message": error} if error else {"code": 1}
        self.spans.append(self._span(trace_id, "agentv.eval", start, _time(
            record.get("end_time") or record.get("timestamp")), root, status, events))

    def _message(self, trace_id: str, message: dict[str, Any]) -> list[dict[str, Any]]:
        assistant = message.get("role") == "assistant"
        model = (message.get("metadata") or {}).get("model")
        start = _time(message.get("start_time"))
        spans = []
        for call in message.get("tool_calls") or []:
            now = _time(None)
            spans.append(self._span(trace_id, f"execute_tool {call.get('tool')}", now, now, {
                "gen_ai.tool.name": call.get("tool"), "gen_ai.tool.call.id": call.get("id"),
                **({"gen_ai.tool.call.arguments": _content(call["input"])}
                   if self.capture and call.get("input") is not None else {}),
                **({"gen_ai.tool.call.result": _content(call["output"])}
                   if self.capture and call.get("output") is not None else {})}))
        usage = message.get("token_usage") or {}
        spans.append(self._span(
            trace_id, f"chat {model or 'unknown'}" if assistant
            else f"gen_ai.message.{message.get('role')}", start, _time(message.get("end_time")),
            {"gen_ai.operation.name": "chat" if assistant else None,
             "gen_ai.request.model": str(model) if model else None,
             "gen_ai.response.model": str(model) if model else None,
             "gen_ai.usage.input_tokens": usage.get("input"),
             "gen_ai.usage.output_tokens": usage.get("output"),
             "gen_ai.usage.cache_read.input_tokens": usage.get("cached"),
             "gen_ai.output.messages": _content(message["content"])
             if self.capture and message.get("content") is not None else None}))
        return spans

    def finish(self) -> None:
        if not self.spans:
            return
        document = {"resourceSpans": [{
            "resource": {"attributes": attributes({"service.name": "agentv"})},
            "scopeSpans": [{"scope": {"name": "agentv", "version": "1.0.0"},
                            "spans": self.spans}]}]}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(redact(json.dumps(document, indent=2, ensure_ascii=False)),
                             encoding="utf-8")
