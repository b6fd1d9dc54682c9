"""AgentV 4.x's text assertions: scores, verdicts and assertion texts as AgentV 4.42.4 gives
them (graders/assertions.ts); the differential tests check the same against the real program."""
from __future__ import annotations

import asyncio

import pytest

from agentv.evaluators.base import AGENTV4, EvalContext
from agentv.evaluators.text_assertions import (
    Contains,
    ContainsAll,
    ContainsAny,
    EndsWith,
    Equals,
    Icontains,
    IcontainsAll,
    IcontainsAny,
    StartsWith,
)


def four(cls, **config):
    """A check as the 4.x loader builds it (AgentV 4.42.4's rules and record)."""
    return cls.model_validate(config, context={"generation": AGENTV4})


def run(evaluator, answer: str):
    ctx = EvalContext(eval_id="t", question="q", candidate_answer=answer)
    return asyncio.run(evaluator.evaluate(ctx))


@pytest.mark.parametrize("evaluator, answer, passed, text", [
    (four(Contains, value="Hello"), "Hello world", True, 'Output contains "Hello"'),
    (four(Contains, value="hello"), "Hello world", False, 'Output does not contain "hello"'),
    (four(Contains, value=4), "2+2=4", True, 'Output contains "4"'),
    (four(Icontains, value="WORLD"), "Hello world", True,
     'Output contains "WORLD" (case-insensitive)'),
    (four(ContainsAny, value=["kiwi", "world"]), "Hello world", True, 'Output contains "world"'),
    (four(ContainsAny, value=["kiwi", "mango"]), "Hello", False,
     'Output does not contain any of: "kiwi", "mango"'),
    (four(ContainsAll, value=["Hello", "kiwi"]), "Hello world", False, 'Output missing: "kiwi"'),
    (four(ContainsAll, value=["Hello", "world"]), "Hello world", True,
     "Output contains all 2 expected strings"),
    (four(IcontainsAny, value=["HELLO"]), "hello", True,
     'Output contains "HELLO" (case-insensitive)'),
    (four(IcontainsAll, value=["A", "z"]), "abc", False, 'Output missing (case-insensitive): "z"'),
    (four(StartsWith, value=" Hello"), "  Hello world ", True, 'Output starts with " Hello"'),
    (four(EndsWith, value="world"), "Hello world\n", True, 'Output ends with "world"'),
    (four(Equals, value="4"), " 4\n", True, 'Output equals "4"'),
    (four(Equals, value="4"), "four", False, 'Output does not equal "4"'),
])
def test_scores_and_texts(evaluator, answer, passed, text):
    result = run(evaluator, answer)
    assert (result.score, result.verdict) == ((1.0, "pass") if passed else (0.0, "fail"))
    assert result.assertions == [{"text": text, "passed": passed}]
