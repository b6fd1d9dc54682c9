"""AgentV 4.x's text assertions: scores, verdicts and assertion texts as AgentV 4.42.4 gives
them (graders/assertions.ts); the differential tests check the same against the real program."""
from __future__ import annotations

import asyncio

import pytest

from agentv.evaluators.base import AGENTV4, EvalContext, run_evaluator
from agentv.evaluators.js_regex import compile_js
from agentv.evaluators.text_assertions import (
    Contains,
    ContainsAll,
    ContainsAny,
    EndsWith,
    Equals,
    Icontains,
    IcontainsAll,
    IcontainsAny,
    IsJson,
    Regex,
    StartsWith,
)


def regex4(**config) -> Regex:
    """A ``regex`` as the 4.x loader builds it (the generation's record: AgentV's assertion)."""
    return Regex.model_validate(config, context={"generation": AGENTV4})


def run(evaluator, answer: str):
    ctx = EvalContext(eval_id="t", question="q", candidate_answer=answer)
    return asyncio.run(evaluator.evaluate(ctx))


@pytest.mark.parametrize("evaluator, answer, passed, text", [
    (Contains(value="Hello"), "Hello world", True, 'Output contains "Hello"'),
    (Contains(value="hello"), "Hello world", False, 'Output does not contain "hello"'),
    (Contains(value=4), "2+2=4", True, 'Output contains "4"'),
    (Icontains(value="WORLD"), "Hello world", True,
     'Output contains "WORLD" (case-insensitive)'),
    (ContainsAny(value=["kiwi", "world"]), "Hello world", True, 'Output contains "world"'),
    (ContainsAny(value=["kiwi", "mango"]), "Hello", False,
     'Output does not contain any of: "kiwi", "mango"'),
    (ContainsAll(value=["Hello", "kiwi"]), "Hello world", False, 'Output missing: "kiwi"'),
    (ContainsAll(value=["Hello", "world"]), "Hello world", True,
     "Output contains all 2 expected strings"),
    (IcontainsAny(value=["HELLO"]), "hello", True, 'Output contains "HELLO" (case-insensitive)'),
    (IcontainsAll(value=["A", "z"]), "abc", False, 'Output missing (case-insensitive): "z"'),
    (StartsWith(value=" Hello"), "  Hello world ", True, 'Output starts with " Hello"'),
    (EndsWith(value="world"), "Hello world\n", True, 'Output ends with "world"'),
    (Equals(value="4"), " 4\n", True, 'Output equals "4"'),
    (Equals(value="4"), "four", False, 'Output does not equal "4"'),
    (regex4(value=r"\d+"), "abc 12", True, r"Output matches pattern /\d+/"),
    (regex4(value="HELLO", flags="i"), "hello", True,
     "Output matches pattern /HELLO/i (flags: i)"),
    (IsJson(), '{"a": 1}', True, "Output is valid JSON"),
    (IsJson(), "NaN", False, "Output is not valid JSON"),
    (IsJson(), "not json", False, "Output is not valid JSON"),
])
def test_scores_and_texts(evaluator, answer, passed, text):
    result = run(evaluator, answer)
    assert (result.score, result.verdict) == ((1.0, "pass") if passed else (0.0, "fail"))
    assert result.assertions == [{"text": text, "passed": passed}]


def test_javascript_regex_named_groups_and_bad_flags():
    assert compile_js(r"(?<year>\d{4})").search("in 2024").group("year") == "2024"
    with pytest.raises(ValueError, match="flags"):
        compile_js("a", "x")


def test_a_pattern_javascript_rejects_fails_when_graded():
    """AgentV 4.42.4 loads the file and fails the grader (``new RegExp`` throws)."""
    result = asyncio.run(run_evaluator(regex4(value="(unclosed"), EvalContext(
        eval_id="t", question="q", candidate_answer="x")))
    assert (result.score, result.verdict) == (0.0, "fail") and "regular expression" in result.error


def test_one_regex_for_both_generations_javascript_semantics_v2_record():
    """v2's ``regex`` is the same JavaScript pattern (``$`` only at the very end), its
    `ignore_case` / `multiline` the flags i / m, recorded as v2 records a check."""
    assert run(regex4(value="a$"), "a\n").score == 0.0  # JavaScript's $, not Python's
    v2 = run(Regex(pattern="a$"), "a\n")
    assert v2.score == 0.0 and v2.misses == ["no match for /a$/"] and v2.assertions is None
    assert run(Regex(pattern="^B$", multiline=True, ignore_case=True), "a\nb").hits == \
        ["matched 'b'"]
