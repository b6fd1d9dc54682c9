"""AgentV 4.x's skill-trigger on a trace (graders/skill-trigger.ts's rules)."""
from __future__ import annotations

import asyncio

import pytest

from agentv.evaluators.base import EvalContext
from agentv.evaluators.skill_trigger import SkillTrigger
from agentv.providers.trace import TraceEvent


def run(evaluator: SkillTrigger, calls: list[TraceEvent]):
    ctx = EvalContext(eval_id="t", question="q", candidate_answer="a", trace=calls)
    return asyncio.run(evaluator.evaluate(ctx))


@pytest.mark.parametrize("calls, should, passed, text", [
    ([TraceEvent(name="Skill", arguments={"skill": "csv-analyzer"})], True, True,
     'Skill tool invoked with skill="csv-analyzer"'),
    ([TraceEvent(name="Read", arguments={"file_path": "/w/skills/csv-analyzer/SKILL.md"})],
     True, True, "Read tool loaded skill file: /w/skills/csv-analyzer/SKILL.md"),
    ([TraceEvent(name="Bash", arguments={"command": "ls"}, result="skills/csv-analyzer/x")],
     True, True, 'Tool "Bash" output referenced skill file for "csv-analyzer"'),
    ([TraceEvent(name="Bash", arguments={"command": "ls"})], True, False,
     'Skill "csv-analyzer" not found in 1 tool call(s)'),
    ([], True, False, "No tool calls recorded"),
    ([], False, True, 'Skill "csv-analyzer" correctly did not trigger'),
    ([TraceEvent(name="Skill", arguments={"skill": "csv-analyzer"})], False, False,
     'Skill tool invoked with skill="csv-analyzer"'),
])
def test_skill_trigger(calls, should, passed, text):
    result = run(SkillTrigger(skill="csv-analyzer", should_trigger=should), calls)
    assert (result.score, result.verdict) == ((1.0, "pass") if passed else (0.0, "fail"))
    assert result.assertions == [{"text": text, "passed": passed}]
