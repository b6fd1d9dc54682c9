"""AgentV 4.42.4's trace envelope and transcript of a test (tasks/results/run_folder_trace.py,
run_folder_transcript.py): the real AgentV's files of one test (agentv4_trace/, written by
4.42.4 for a cli agent answering with two assistant messages, two tool calls, token usage and
cost) are rebuilt byte for byte, but the envelope's creation time."""
from __future__ import annotations

import json
from pathlib import Path

from agentv.tasks.results.run_folder_files import js_numbers, trace_messages
from agentv.tasks.results.run_folder_trace import envelope, hash_hex, js, projection_identity
from agentv.tasks.results.run_folder_transcript import transcript_lines

REAL = Path(__file__).parent / "agentv4_trace"
OUTPUTS = [{"role": "assistant", "content": "a", "tool_calls": [
    {"tool": "Read", "input": {"n": 0}, "output": "file"}, {"tool": "Bash", "input": {"n": 1}}]},
    {"role": "assistant", "content": "b"}]
RECORD = {"timestamp": "2026-11-29T03:15:59.504Z", "test_id": "t2", "suite": "s",
          "category": "Uncategorized", "score": 1.0, "target": "agent",
          "token_usage": {"input": 5, "output": 5, "cached": 3}, "cost_usd": 0,
          "duration_ms": 100, "execution_status": "ok", "candidate_answer": "b",
          "scores": [{"name": "code-grader", "type": "code-grader", "score": 1.0,
                      "weight": 1.0, "verdict": "pass", "assertions": []}]}


def built() -> dict:
    messages = trace_messages(RECORD, [{"role": "user", "content": "Answer t2."}], OUTPUTS)
    return js_numbers(envelope(RECORD, messages, "cli", "s.eval.yaml", "out3"))


def test_the_envelope_is_agentvs_byte_for_byte():
    real = (REAL / "trace.json").read_text(encoding="utf-8")
    ours = built()
    assert ours["created_at"].endswith("Z") and len(ours["created_at"]) == 24
    ours["created_at"] = json.loads(real)["created_at"]
    assert json.dumps(ours, indent=2, ensure_ascii=False) + "\n" == real


def test_the_transcript_is_agentvs_byte_for_byte():
    lines = transcript_lines(built(), "t2", "agent")
    text = "".join(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n"
                   for line in lines)
    assert text == (REAL / "transcript.jsonl").read_text(encoding="utf-8")


def test_a_failed_target_traces_its_error():
    record = {**RECORD, "candidate_answer": "", "error": "boom", "scores": None,
              "execution_status": "execution_error", "cost_usd": None, "token_usage": None}
    messages = trace_messages(record, [{"role": "user", "content": "q"}], None)
    env = envelope(record, messages, None, "s.eval.yaml", "out3")
    root, chat = env["trace"]["spans"]
    assert root["status"] == {"code": "ERROR", "message": "boom"}
    assert root["events"][-1]["attributes"] == {"exception.message": "boom"}
    assert chat["attributes"]["gen_ai.output.messages"] == "Error occurred: boom"
    assert env["source"]["provider"] == "agent" and "scores" not in env
    assert env["source"]["metadata"] == {"target": "agent", "eval_case_id": "t2"}
    assert [line["role"] for line in transcript_lines(env, "t2", "agent")] == \
        ["user", "assistant"]


def test_hash_parts_are_javascripts():
    assert js(1.0) == "1" and js(0.5) == "0.5" and js(None) == "" and js("x") == "x"
    assert hash_hex(["a", 1], 8) == hash_hex(["a", 1.0], 8)


def test_a_projection_without_suite_or_eval_path_warns():
    identity = projection_identity({"run_id": "r", "test_id": "a b", "target": "t",
                                    "attempt": 0, "variant": None})
    assert "test_id=a%20b" in identity["key"] and "suite=~" in identity["key"]
    assert identity["issues"][0]["code"] == "missing_suite_or_eval_path"
    assert identity["id"].startswith("agentv-prj-") and len(identity["id"]) == 43
