"""``--otel-file`` (tasks/results/run_folder_otel.py): AgentV 4.42.4's OTLP JSON of a run —
each test's spans in the order they end (tool calls, their message, the test's root), the
attributes typed as OTLP values, content only when captured, secrets scrubbed."""
from __future__ import annotations

import json

from agentv.providers import secrets
from agentv.tasks.results.run_folder_otel import OtelFile, js_nanos, value

RECORD = {"timestamp": "2026-01-01T00:00:01.000Z", "test_id": "t", "suite": "s",
          "target": "agent", "score": 0.5, "duration_ms": 12, "candidate_answer": "b",
          "token_usage": {"input": 5, "output": 6},
          "scores": [{"name": "c", "type": "contains", "score": 0.5, "verdict": "fail"}]}
MESSAGES = [{"role": "user", "content": "q"},
            {"role": "assistant", "content": "b", "metadata": {"model": "m"},
             "tool_calls": [{"tool": "Read", "id": "c1", "input": {"n": 1}, "output": "x"}]}]


def spans(path):
    document = json.loads(path.read_text())
    (resource,) = document["resourceSpans"]
    assert resource["resource"]["attributes"] == [
        {"key": "service.name", "value": {"stringValue": "agentv"}}]
    (scope,) = resource["scopeSpans"]
    assert scope["scope"] == {"name": "agentv", "version": "1.0.0"}
    return scope["spans"]


def attrs(span):
    return {a["key"]: a["value"] for a in span["attributes"]}


def test_a_tests_spans_end_before_its_root(tmp_path):
    otel = OtelFile(tmp_path / "o" / "otel.json", capture=False)
    otel.add(RECORD, MESSAGES, MESSAGES[1:])
    otel.finish()
    user, tool, chat, root = spans(tmp_path / "o" / "otel.json")
    assert [s["name"] for s in (user, tool, chat, root)] == \
        ["gen_ai.message.user", "execute_tool Read", "chat m", "agentv.eval"]
    assert len({s["traceId"] for s in (user, tool, chat, root)}) == 1
    assert attrs(tool) == {"gen_ai.tool.name": {"stringValue": "Read"},
                           "gen_ai.tool.call.id": {"stringValue": "c1"}}
    assert attrs(root)["agentv.score"] == {"doubleValue": 0.5}
    assert attrs(root)["agentv.trace.token_output"] == {"intValue": 6}
    assert attrs(root)["agentv.trace.tool_names"] == {"stringValue": "Read"}
    assert "agentv.output_text" not in attrs(root)
    assert root["status"] == {"code": 1} and chat["status"] == {"code": 0}
    assert root["startTimeUnixNano"] == "1767225601000000000"
    assert root["events"][0]["name"] == "agentv.grader.c"


def test_content_when_captured_and_secrets_scrubbed(tmp_path):
    with secrets.scope() as registry:
        registry.add(["sk-secret-value-123"])
        otel = OtelFile(tmp_path / "otel.json", capture=True)
        otel.add({**RECORD, "candidate_answer": "sk-secret-value-123", "error": "boom"},
                 MESSAGES, None)
        otel.finish()
    text = (tmp_path / "otel.json").read_text()
    assert "sk-secret-value-123" not in text
    root = spans(tmp_path / "otel.json")[-1]
    assert root["status"] == {"code": 2, "message": "boom"}
    assert '"gen_ai.tool.call.arguments"' in text and '{\\"n\\":1}' in text


def test_no_test_no_file(tmp_path):
    OtelFile(tmp_path / "otel.json").finish()
    assert not (tmp_path / "otel.json").exists()
    assert value(True) == {"boolValue": True} and value(2.0) == {"intValue": 2}
    assert js_nanos(1795922159504000000) == "1795922159504000000"
