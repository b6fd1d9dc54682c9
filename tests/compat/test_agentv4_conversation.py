"""AgentV 4.42.4's ``mode: conversation`` run by both programs — the real AgentV and agentv —
gives the same record per test: score (±0.001), execution status, key set and each entry of
``scores`` (``turn-<n>`` and ``conversation``: name, type, score, verdict, and its graders').
The target is a loopback OpenAI-compatible stub that answers with what it was sent (how many
messages, the user's words), so a turn's assertions check the conversation each program
sends; rubric items are answered by a loopback judge (``criterion-2`` unsatisfied).

A deviation, measured here too: AgentV 4.42.4's `cli` target cannot take part in a
conversation — it writes each turn's prompt file under a folder named after the test id and
``turn-<n>`` (``/tmp/agentv-<test>/turn-1-….prompt.txt``), which does not exist, so every
turn fails with "Provider error: ENOENT …". agentv sends the turn's input as {PROMPT} (what
AgentV means to send) and grades the agent's answers."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.agentv4_real import by_test, compare, run_agentv4
from tests.conftest import real_tool, run_cli
from tests.sse_judge import JudgeStub

pytestmark = pytest.mark.slow  # both programs, end to end

SUITE = Path(__file__).parent / "agentv4_conversation"


def target_reply(body: dict) -> str:
    messages = body.get("messages") or []
    said = [m.get("content") for m in messages if m.get("role") == "user"]
    return f"{len(messages)} messages; you said: " + " | ".join(map(str, said))


def judge_reply(body: dict) -> str:
    ids = dict.fromkeys(re.findall(r"(?:criterion|rubric)-\d+", json.dumps(body)))
    return json.dumps({
        "score": 0.7, "assertions": [{"text": "fine", "passed": True}], "hits": ["fine"],
        "misses": [], "reasoning": "fine", "overall_reasoning": "ok",
        "checks": [{"id": i, "satisfied": i != "criterion-2", "reasoning": "r"} for i in ids]})


@pytest.fixture(scope="module")
def runs(tmp_path_factory, prefect_api):
    tree = tmp_path_factory.mktemp("agentv4-conversation") / "suite"
    shutil.copytree(SUITE, tree)
    real, ours = tree.parent / "agentv4-out", tree.parent / "agentv.jsonl"
    with JudgeStub(target_reply) as target, JudgeStub(judge_reply) as judge:
        env = {"AGENTV4_TARGET_URL": target.base_url, "AGENTV4_JUDGE_URL": judge.base_url,
               "AGENTV4_JUDGE_KEY": "sk-judge-stub", "AGENTV4_JUDGE_MODEL": "stub-judge",
               "AGENTV4_TARGET_MODEL": "stub-target"}
        files = ["conversation.eval.yaml", "agent.eval.yaml"]
        args = (*files, "--targets", "targets.yaml")
        proc = run_agentv4(real_tool("agentv4"), files, real, tree, *args[2:], env=env)
        assert (real / "index.jsonl").is_file(), proc.stdout[-2000:] + proc.stderr[-2000:]
        sent_real = len(target.requests)
        proc = run_cli("eval", *args, "--out", str(ours), cwd=tree, env=env, timeout=600)
        assert proc.returncode in (0, 1), proc.stdout[-2000:] + proc.stderr[-2000:]
        assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
        assert len(target.requests) == 2 * sent_real  # the same turns sent by both
        assert judge.requests
    return real / "index.jsonl", ours


def members(record: dict) -> list[tuple]:
    return [(s["name"], [(m["type"], round(m["score"], 3), m["verdict"])
                         for m in s.get("scores") or []]) for s in record.get("scores") or []]


def test_conversations_score_as_agentv4(runs):
    real, ours = runs
    assert len(by_test(real)) == 12
    assert {key: diff for key, diff in compare(real, ours).items() if key[0] != "agent"} == {}


def assertions(record: dict) -> list[list]:
    """Each entry's assertions: their texts where no judge graded (a rubric item's text is
    worded differently: agentv appends the judge's reasoning, AgentV keeps it as evidence)."""
    judged = {"llm-grader", "rubrics"}
    return [[a["passed"] if {m["type"] for m in s.get("scores") or []} & judged
             else (a["text"], a["passed"]) for a in s["assertions"]]
            for s in record.get("scores") or []]


def test_each_turn_is_graded_as_agentv4_grades_it(runs):
    real, ours = (by_test(p) for p in runs)
    for key, record in real.items():
        if key[0] == "agent":  # the cli deviation (below)
            continue
        assert members(record) == members(ours[key]), key
        assert assertions(record) == assertions(ours[key]), key


def test_the_suite_exercises_passes_failures_and_skips(runs):
    records = by_test(runs[1]).values()
    assert {r["execution_status"] for r in records} == {"ok", "quality_failure"}
    assert "skip" in {s["verdict"] for r in records for s in r["scores"]}


def test_a_cli_agent_answers_each_turn_where_agentv4_cannot_write_its_prompt_file(runs):
    real, ours = (by_test(p) for p in runs)
    agent = [key for key in real if key[0] == "agent"]
    assert len(agent) == 3
    for key in agent:  # AgentV: every turn it sends fails on its prompt file
        sent = [s for s in real[key]["scores"] if s["verdict"] != "skip"
                and s["name"].startswith("turn-")]
        assert sent and all(s["assertions"][0]["text"].startswith("Provider error: ENOENT")
                            for s in sent), key
    echoed = ours[("agent", "turn-input-only")]["scores"]
    assert echoed[0]["assertions"] == [
        {"text": 'Output equals "heard: What is 2 + 2?"', "passed": True}]  # the turn alone
    assert echoed[-1]["name"] == "conversation" and echoed[-1]["verdict"] == "pass"
    crashed = ours[("agent", "crashing-turn")]["scores"]
    assert crashed[0]["assertions"] == [
        {"text": "Provider error: command exited with code 3: the agent crashed",
         "passed": False}]
    assert [s["verdict"] for s in crashed] == ["fail", "pass"]
    assert ours[("agent", "crashing-turn")]["score"] == 0.5
    assert [s["verdict"] for s in ours[("agent", "crash-then-stop")]["scores"]] == \
        [s["verdict"] for s in real[("agent", "crash-then-stop")]["scores"]] == ["fail", "skip"]
