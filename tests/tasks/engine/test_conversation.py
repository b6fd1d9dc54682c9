"""A 4.x test in ``mode: conversation`` run turn by turn (tasks/engine/conversation.py): the
target sees the conversation so far, each turn is graded on its answer, the turns' scores are
aggregated, ``on_turn_failure: stop`` skips the rest, and the record has AgentV 4.42.4's keys."""
from __future__ import annotations

import asyncio
from pathlib import Path

from agentv.providers.base import ProviderError, Response
from agentv.providers.llm.retry import RetryingProvider, RetryPolicy
from agentv.tasks.engine.case_runner import CaseRunner, RunOptions, TargetRuntime
from agentv.tasks.load.files import load_suite
from agentv.tasks.plan.expand import Job
from agentv.tasks.results.agentv4_rows import written


class Echo:
    """Answers 'turn <n> of <messages sent>: <question>'; fails on a question 'boom'."""
    name, kind = "echo", "openai"

    def __init__(self) -> None:
        self.requests: list = []

    def check(self) -> None: ...

    async def invoke(self, request):
        self.requests.append(request)
        if request.question == "boom":
            raise ProviderError("target down")
        return Response(text=f"{len(request.chat)} messages: {request.question}")


def run(tmp_path: Path, body: str) -> tuple[dict[str, dict], Echo]:
    path = tmp_path / "conv.eval.yaml"
    path.write_text(body, encoding="utf-8")
    echo = Echo()
    runtime = TargetRuntime("echo", RetryingProvider(echo, RetryPolicy(max_retries=0)))
    runner = CaseRunner({"echo": runtime}, RunOptions())

    async def all_cases() -> list[dict]:
        return [await runner.run(Job(case, "echo")) for case in load_suite(path).cases]
    return {r["test_id"]: r for r in asyncio.run(all_cases())}, echo


SUITE = """tests:
  - id: mean
    mode: conversation
    criteria: answers
    conversation_id: c-1
    metadata: {team: a}
    input:
      - role: system
        content: Be terse.
    turns:
      - input: first
        assertions:
          - type: contains
            value: "first"
      - input: second
        assertions:
          - type: contains
            value: "zzz"
      - input: third
  - id: stop
    mode: conversation
    on_turn_failure: stop
    aggregation: min
    input: hello
    turns:
      - input: boom
      - input: never sent
    assertions:
      - type: contains
        value: "user: hello"
"""


def test_each_turn_sees_the_conversation_so_far_and_the_score_is_the_mean(tmp_path):
    records, echo = run(tmp_path, SUITE)
    sent = [r for r in echo.requests if r.eval_id.startswith("mean/")]
    assert [r.eval_id for r in sent] == ["mean/turn-1", "mean/turn-2", "mean/turn-3"]
    assert [len(r.chat) for r in sent] == [2, 4, 6]  # system + user, then earlier answers
    assert sent[2].chat[4] == {"role": "assistant", "content": "4 messages: second"}
    record = records["mean"]
    assert abs(record["score"] - 2 / 3) < 1e-9
    assert record["execution_status"] == "quality_failure"
    assert [(s["name"], s["type"], s["score"], s["verdict"]) for s in record["scores"]] == [
        ("turn-1", "rubrics", 1.0, "pass"), ("turn-2", "rubrics", 0.0, "fail"),
        ("turn-3", "rubrics", 1.0, "pass")]
    assert "weight" not in record["scores"][0] and "scores" not in record["scores"][2]
    assert record["scores"][0]["scores"][0]["type"] == "contains"
    row = written(record)
    assert list(row) == ["timestamp", "test_id", "suite", "category", "score", "target",
                         "scores", "execution_status", "metadata"]  # no conversation_id


def test_a_failed_turn_stops_the_rest_and_the_case_grades_the_transcript(tmp_path):
    records, echo = run(tmp_path, SUITE)
    assert [r.question for r in echo.requests if r.eval_id.startswith("stop/")] == ["boom"]
    record = records["stop"]
    names = [(s["name"], s["score"], s["verdict"]) for s in record["scores"]]
    assert names == [("turn-1", 0.0, "fail"), ("turn-2", 0.0, "skip"),
                     ("conversation", 1.0, "pass")]
    assert record["scores"][0]["assertions"] == [
        {"text": "Provider error: target down", "passed": False}]
    assert record["scores"][1]["assertions"][0]["text"] == "Skipped due to previous turn failure"
    assert record["score"] == 0.0 and record["execution_status"] == "quality_failure"
    assert "error" not in written(record)


def test_a_window_sends_the_system_messages_and_the_last_exchanges(tmp_path):
    body = ("tests:\n  - id: w\n    mode: conversation\n    window_size: 1\n    input:\n"
            "      - role: system\n        content: S\n      - role: user\n        content: U\n"
            "    turns:\n      - input: a\n      - input: b\n      - input: c\n")
    records, echo = run(tmp_path, body)
    assert [[m["content"] for m in r.chat] for r in echo.requests] == [
        ["S", "U", "a"], ["S", "3 messages: a", "b"], ["S", "3 messages: b", "c"]]
    assert records["w"]["score"] == 1.0 and records["w"]["execution_status"] == "ok"
