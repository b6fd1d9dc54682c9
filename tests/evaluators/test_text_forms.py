"""The answer's form, for both generations: ``regex`` (JavaScript semantics) and ``is-json``
— 4.x's assertion texts as AgentV 4.42.4 gives them, v2's scored check."""
from __future__ import annotations

import asyncio

import pytest

from agentv.evaluators.base import AGENTV4, EvalContext, run_evaluator
from agentv.evaluators.js_regex import compile_js
from agentv.evaluators.text_forms import IsJson, Regex
from tests.evaluators.test_text_assertions import four, run


def regex4(**config) -> Regex:
    """A ``regex`` as the 4.x loader builds it (the generation's record: AgentV's assertion)."""
    return Regex.model_validate(config, context={"generation": AGENTV4})


@pytest.mark.parametrize("evaluator, answer, passed, text", [
    (regex4(value=r"\d+"), "abc 12", True, r"Output matches pattern /\d+/"),
    (regex4(value="HELLO", flags="i"), "hello", True,
     "Output matches pattern /HELLO/i (flags: i)"),
    (four(IsJson, ), '{"a": 1}', True, "Output is valid JSON"),
    (four(IsJson, ), "NaN", False, "Output is not valid JSON"),
    (four(IsJson, ), "not json", False, "Output is not valid JSON"),
])
def test_scores_and_texts(evaluator, answer, passed, text):
    result = run(evaluator, answer)
    assert (result.score, result.verdict) == ((1.0, "pass") if passed else (0.0, "fail"))
    assert result.assertions == [{"text": text, "passed": passed}]


def test_v2_is_json_reads_fenced_json_and_checks_a_schema():
    schema = {"type": "object", "required": ["a"]}
    assert run(IsJson(), "```json\n{\"a\": 1}\n```").score == 1.0
    assert run(IsJson(schema=schema), '{"b": 1}').score == 0.0
    assert run(four(IsJson), "```json\n{}\n```").score == 0.0  # JSON.parse: no fences


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
