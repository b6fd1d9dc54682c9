"""AgentV 4.x's ``composite`` (evaluators.assert_set): members run as written — their own
``negate``, ``required``, ``min_score`` and ``weight`` are not applied, as AgentV 4.42.4."""
from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentv.evaluators.base import EvalContext
from agentv.tasks.load.agentv4.assertions import AssertionBuilder


def composite(tmp_path: Path, members: list[dict], aggregator: dict):
    built = AssertionBuilder(str(tmp_path / "s.eval.yaml"), tmp_path, print).build_list(
        [{"type": "composite", "name": "combo", "assertions": members,
          "aggregator": aggregator}], 1)
    return built[0]


def graded(evaluator, answer: str = "Paris"):
    return asyncio.run(evaluator.evaluate(EvalContext(eval_id="t", question="q",
                                                      candidate_answer=answer)))


def test_a_members_negate_is_not_applied_in_a_weighted_average(tmp_path):
    result = graded(composite(tmp_path, [
        {"type": "contains", "value": "Rome", "name": "m0", "negate": True},
        {"type": "contains", "value": "Paris", "name": "m1"}], {"type": "weighted_average"}))
    assert result.score == 0.5
    assert [(c.name, c.score) for c in result.children] == [("m0", 0.0), ("m1", 1.0)]


def test_a_members_negate_is_not_applied_in_a_threshold(tmp_path):
    result = graded(composite(tmp_path, [
        {"type": "contains", "value": "Rome", "name": "m0", "negate": True},
        {"type": "icontains", "value": "paris", "name": "m1"}],
        {"type": "threshold", "threshold": 0.5}))
    assert (result.score, result.verdict) == (0.5, "pass")
    assert result.assertions[0]["text"] == "1/2 evaluators passed (threshold: 0.5)"


def test_members_own_weight_and_required_are_not_applied(tmp_path):
    """Only the aggregator's ``weights`` (default 1) weigh a member."""
    result = graded(composite(tmp_path, [
        {"type": "contains", "value": "Paris", "name": "m0", "weight": 0, "required": True,
         "min_score": 1},
        {"type": "contains", "value": "Rome", "name": "m1", "weight": 3, "required": True}],
        {"type": "weighted_average", "weights": {"m0": 2}}))
    assert result.score == pytest.approx(2 / 3)


def test_a_negated_composite_still_negates_its_score(tmp_path):
    built = AssertionBuilder(str(tmp_path / "s.eval.yaml"), tmp_path, print).build_list(
        [{"type": "composite", "name": "combo", "negate": True, "aggregator": {
            "type": "weighted_average"}, "assertions": [
            {"type": "contains", "value": "Rome", "name": "m0", "negate": True}]}], 1)
    assert graded(built[0]).score == 1.0


def test_a_member_that_throws_fails_the_whole_composite(tmp_path):
    """AgentV's members run in one Promise.all: a regex JavaScript rejects throws, and the
    composite scores 0 as a failed grader (the other members' scores are lost)."""
    from agentv.evaluators.base import run_evaluator
    evaluator = composite(tmp_path, [
        {"type": "regex", "value": "Paris", "flags": "x", "name": "m0"},
        {"type": "contains", "value": "Paris", "name": "m1"}],
        {"type": "threshold", "threshold": 0})
    result = asyncio.run(run_evaluator(evaluator, EvalContext(eval_id="t", question="q",
                                                              candidate_answer="Paris")))
    assert (result.name, result.type, result.score, result.children) == (
        "combo", "composite", 0.0, None)
    assert "Invalid flags supplied to RegExp constructor 'x'" in (result.error or "")


def test_a_judge_members_error_stays_its_own(tmp_path):
    """A judge that cannot grade skips (it does not fail the composite)."""
    result = graded(composite(tmp_path, [
        {"type": "llm-grader", "name": "m0"},
        {"type": "contains", "value": "Paris", "name": "m1"}], {"type": "weighted_average"}))
    assert result.score == 1.0
    assert [c.name for c in result.children] == ["m0", "m1"]
