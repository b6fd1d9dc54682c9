"""rubric evaluator and case-level rubrics: checklist and score-range modes, judged by the
real mock provider."""
from __future__ import annotations

import asyncio

import pytest

from agentv.evaluators.base import run_evaluator
from agentv.evaluators.rubric import rubric_evaluator_for
from agentv.providers.base import ConfigError
from tests.evaluator_helpers import make_ctx, run

ANSWER = "Quicksort picks a pivot, partitions, recurses. Average O(n log n)."


def checks(*verdicts: tuple[str, bool]) -> dict:
    return {"checks": [{"id": i, "satisfied": ok, "reasoning": f"why {i}"} for i, ok in verdicts],
            "overall_reasoning": "summary"}


def evaluate_case_rubrics(rubrics: list, reply) -> object:
    ctx = make_ctx(ANSWER, judge=reply, rubrics=rubrics, expected_outcome="Explain quicksort",
                   reference_answer="Divide and conquer...")
    return asyncio.run(run_evaluator(rubric_evaluator_for(rubrics, where="s.yaml:4"), ctx)), ctx


def test_string_rubrics_are_required_and_weighted_equally():
    result, ctx = evaluate_case_rubrics(
        ["Mentions divide-and-conquer", "Explains partition", "States complexity"],
        checks(("rubric-1", True), ("rubric-2", True), ("rubric-3", True)))
    assert result.name == "rubric" and result.score == 1.0 and result.verdict == "pass"
    assert result.hits[0] == "[rubric-1] Mentions divide-and-conquer: why rubric-1"
    prompt = result.evaluator_provider_request["user_prompt"]
    assert "- [rubric-2] (REQUIRED): Explains partition" in prompt
    assert "[[ ## reference_answer ## ]]" in prompt and ANSWER in prompt


def test_failed_required_item_caps_the_verdict_at_fail():
    rubrics = [{"id": "structure", "description": "Has headings", "weight": 1},
               {"id": "examples", "expected_outcome": "Has examples", "weight": 3,
                "required": False}]
    result, _ = evaluate_case_rubrics(rubrics, checks(("structure", False), ("examples", True)))
    assert result.score == 0.75 and result.verdict == "fail"
    optional_miss, _ = evaluate_case_rubrics(rubrics, checks(("structure", True),
                                                             ("examples", False)))
    assert optional_miss.score == 0.25 and optional_miss.verdict == "fail"
    assert "(weight: 3)" in optional_miss.evaluator_provider_request["user_prompt"]


def test_optional_miss_does_not_cap_a_high_score():
    rubrics = [{"id": "a", "description": "A", "weight": 9},
               {"id": "b", "description": "B", "required": False}]
    result, _ = evaluate_case_rubrics(rubrics, checks(("a", True), ("b", False)))
    assert result.score == 0.9 and result.verdict == "pass"


def test_item_the_judge_skipped_counts_as_a_miss():
    result, _ = evaluate_case_rubrics(["One", "Two"], checks(("rubric-1", True)))
    assert result.score == 0.5 and result.verdict == "fail"
    assert result.misses == ["[rubric-2] Two: no verdict from the judge"]


def test_non_json_judge_reply_is_asked_again_then_an_error():
    result, _ = evaluate_case_rubrics(["One"], "I think it is fine.")
    assert result.score == 0 and "broke the output contract twice" in result.error
    assert result.details["raw_reply"] == "I think it is fine."
    assert result.type == "llm_judge" and result.judge_call["asks"] == 2


def test_score_ranges_shorthand_and_required_min_score_gate():
    rubrics = [{"id": "accuracy", "weight": 2, "required_min_score": 8, "score_ranges": {
                   0: "Wrong", 3: "Mostly wrong", 6: "Minor errors", 8: "Accurate", 10: "Perfect"}},
               {"id": "brevity", "score_ranges": {0: "Too long", 6: "Short"}}]
    reply = {"checks": [{"id": "accuracy", "score": 7, "reasoning": "one slip"},
                        {"id": "brevity", "score": 10}], "overall_reasoning": "ok"}
    result, _ = evaluate_case_rubrics(rubrics, reply)
    assert result.score == pytest.approx((0.7 * 2 + 1.0) / 3)
    assert result.verdict == "fail"  # accuracy 7 < required_min_score 8
    assert result.misses == ["[accuracy] accuracy - Score: 7/10 (Minor errors): one slip"]
    assert result.details["raw_scores"] == {"accuracy": 7, "brevity": 10}
    prompt = result.evaluator_provider_request["user_prompt"]
    assert "### Criterion: accuracy (weight: 2) [REQUIRED: min score 8]" in prompt
    assert "  - Score 6-7: Minor errors" in prompt and "  - Score 10: Perfect" in prompt


def test_score_ranges_pass_when_every_gate_holds():
    rubrics = [{"id": "q", "required": True, "score_ranges": [
        {"score_range": [0, 4], "expected_outcome": "bad"},
        {"score_range": [5, 10], "expected_outcome": "good"}]}]
    result, _ = evaluate_case_rubrics(rubrics, {"checks": [{"id": "q", "score": 10}]})
    assert result.score == 1.0 and result.verdict == "pass"
    gated, _ = evaluate_case_rubrics(rubrics, {"checks": [{"id": "q", "score": 9}]})
    assert gated.verdict == "fail"  # required: true means 10/10


@pytest.mark.parametrize("rubrics, field, message", [
    ([{"id": "a", "description": "x", "required_min_score": 11}], "rubrics.0.required_min_score",
     "must be <= 10"),
    ([{"id": "a", "description": "x", "weight": -1}], "rubrics.0.weight", "must be >= 0"),
    ([{"id": "a", "score_ranges": [{"score_range": [0, 5], "expected_outcome": "x"},
                                   {"score_range": [5, 10], "expected_outcome": "y"}]}],
     "rubrics.0", "overlaps"),
    ([{"id": "a", "score_ranges": {0: "x", 4: "y"}}, {"id": "b", "score_ranges": {2: "z"}}],
     "rubrics", "must start at 0"),
    ([{"id": "a", "score_ranges": [{"score_range": [0, 8], "expected_outcome": "x"}]}],
     "rubrics.0", "9-10 uncovered"),
    ([{"id": "a"}], "rubrics.0", "needs 'expected_outcome'"),
    (["same", {"id": "rubric-1", "description": "dup"}], "rubrics", "duplicate rubric id"),
])
def test_bad_rubrics_are_config_errors_with_location(rubrics, field, message):
    with pytest.raises(ConfigError) as err:
        rubric_evaluator_for(rubrics, where="suite.yaml:12")
    assert err.value.where == "suite.yaml:12" and err.value.field == field
    assert message in str(err.value)


def test_rubric_type_uses_case_rubrics_when_it_has_none():
    ctx = make_ctx(ANSWER, judge=checks(("rubric-1", True)), rubrics=["Names the pivot"])
    result = run({"type": "rubric"}, ctx)
    assert result.score == 1 and result.type == "llm_judge"  # AgentV records it so
    no_rubrics = run({"type": "rubric"}, make_ctx(ANSWER, judge=checks()))
    assert no_rubrics.error and "no rubrics" in no_rubrics.error


def test_rubric_type_with_its_own_items_and_unknown_key_warning():
    warnings: list[str] = []
    from agentv.evaluators.registry import build_evaluator
    evaluator = build_evaluator({"type": "rubric", "rubrics": [
        {"id": "x", "description": "X", "colour": "red"}]}, where="s.yaml:3", warn=warnings.append)
    assert warnings and "colour" in warnings[0]
    ctx = make_ctx(ANSWER, judge=checks(("x", False)))
    result = asyncio.run(run_evaluator(evaluator, ctx))
    assert result.score == 0 and result.verdict == "fail"


def test_rubric_without_a_judge_is_an_evaluator_error_not_a_crash():
    result = run({"type": "rubric", "rubrics": ["One"]}, make_ctx(ANSWER))
    assert result.score == 0 and "no judge" in result.error


def test_llm_judge_with_rubrics_grades_them_item_by_item():
    ctx = make_ctx(ANSWER, judge=checks(("clarity", True)))
    result = run({"type": "llm_judge", "name": "graded", "rubrics": [
        {"id": "clarity", "description": "Is clear"}]}, ctx)
    assert result.type == "llm_judge" and result.name == "graded" and result.score == 1.0
    assert result.hits == ["[clarity] Is clear: why clarity"]
