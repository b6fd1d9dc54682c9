"""A 4.x case's score and execution status (AgentV 4.42.4's orchestrator rules)."""
from __future__ import annotations

from agentv.evaluators.base import EvaluatorResult
from agentv.evaluators.gated import Gated
from agentv.evaluators.outcome4 import case_outcome, grader_verdict
from agentv.evaluators.text_assertions import Contains


def res(name: str, score: float, weight: float = 1.0, type_: str = "contains", **kw):
    return EvaluatorResult(name=name, type=type_, score=score, weight=weight, **kw)


def gate(**kw) -> Gated:
    return Gated(inner=Contains(value="x"), type="contains", **kw)


def test_weighted_mean_and_threshold():
    out = case_outcome([res("a", 1.0, 3), res("b", 0.0, 1)], [gate(), gate()], None)
    assert (out.score, out.execution_status) == (0.75, "quality_failure")
    out = case_outcome([res("a", 1.0, 3), res("b", 0.0, 1)], [gate(), gate()], 0.7)
    assert out.execution_status == "ok"


def test_required_below_minimum_zeroes_the_case():
    results = [res("a", 1.0), res("b", 0.0)]
    assert case_outcome(results, [gate(), gate(required=True)], None).score == 0.0
    assert case_outcome([res("a", 0.6)], [gate(required=0.5)], None).score == 0.6
    assert case_outcome([res("a", 0.6)], [gate(required=True, min_score=0.7)], None).score == 0
    assert case_outcome([res("a", 0.6)], [gate(required=False, min_score=0.9)], None).score == 0.6


def test_a_skipped_judge_is_an_execution_error():
    judge = res("rubrics", 0.0, type_="llm-grader", error="unparsable reply",
                assertions=[{"text": "Grader parse failure", "passed": False}])
    out = case_outcome([res("a", 1.0), judge], [gate(), gate()], None)
    assert (out.score, out.execution_status, out.failure_stage) == (
        0.0, "execution_error", "evaluator")
    assert out.error == "rubrics: Grader parse failure"
    assert grader_verdict(judge) == "skip"


def test_no_weight_scores_zero():
    assert case_outcome([res("a", 1.0, 0)], [gate()], None).score == 0.0


def test_negate_decides_the_verdict_on_the_raw_score_then_swaps_it():
    """AgentV 4.42.4's negateScore: 0.667 (fail) → 0.333 pass; 0.9 (pass) → 0.1 fail."""
    import asyncio

    from agentv.evaluators.base import EvalContext, Evaluator

    class Fixed(Evaluator):
        kind = "fixed"
        value: float

        async def evaluate(self, ctx):
            return self.result(self.value)

    ctx = EvalContext(eval_id="t", question="q", candidate_answer="a")
    for raw, score, verdict in ((2 / 3, 1 / 3, "pass"), (0.9, 0.1, "fail"), (0.5, 0.5, "pass")):
        result = asyncio.run(Gated(inner=Fixed(value=raw), type="fixed",
                                   negate=True).evaluate(ctx))
        assert (round(result.score, 3), grader_verdict(result)) == (round(score, 3), verdict)


def test_token_usage_of_a_4x_suite_counts_cached_tokens():
    import asyncio

    from agentv.evaluators.base import AGENTV4, EvalContext
    from agentv.evaluators.budgets import TokenUsage
    from agentv.providers.base import Usage
    ctx = EvalContext(eval_id="t", question="q", candidate_answer="a",
                      usage=Usage(input_tokens=10, output_tokens=5, cached_tokens=3))
    v4 = TokenUsage.model_validate({"max_total": 16}, context={"generation": AGENTV4})
    v2 = TokenUsage.model_validate({"max_total": 16})
    assert asyncio.run(v4.evaluate(ctx)).score == 0.0  # 18 > 16
    assert asyncio.run(v2.evaluate(ctx)).score == 1.0  # 15
