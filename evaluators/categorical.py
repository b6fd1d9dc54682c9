"""``categorical_judge``: the LLM judge picks a label for a configurable ``criterion``.

excellent / good / fair / poor / wrong → 1.0 / 0.75 / 0.5 / 0.25 / 0.0; the verdict is
pass for excellent or good, else fail. The reply must be ``{"rating", "reason"}`` with a
known label; any other reply is asked again once, then it is this evaluator's error
(``evaluators.judge_call``; labels: ``evaluators.rating``).
``prompt`` (inline or a file beside the eval) may replace the template; it can use
``{{ criterion }}``, ``{{ question }}``, ``{{ output }}`` and ``{{ expected }}``.
"""
from __future__ import annotations

from pydantic import Field

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult
from agentv.evaluators.judge_call import JudgeAsk, ask_judge, judged_fields
from agentv.evaluators.llm_judge import judge_inputs, load_prompt, template_values
from agentv.evaluators.rating import (
    CONTRACT,
    DEFAULT_CRITERION,
    SYSTEM_PROMPT,
    build_prompt,
    rating_of,
    rating_score,
)
from agentv.evaluators.scored import score_result


class CategoricalJudge(Evaluator):
    """The LLM judge picks a label for `criterion`: excellent / good / fair / poor / wrong (1 /
    0.75 / 0.5 / 0.25 / 0); pass = excellent or good."""
    kind = "categorical_judge"
    uses_judge = True
    criterion: str = Field(default=DEFAULT_CRITERION, min_length=1)
    prompt: str | None = None

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        template = load_prompt(self.prompt, self.base_dir)
        expected = ctx.reference_answer or ctx.expected_outcome
        prompt = build_prompt(self.criterion, ctx.candidate_answer, expected,
                              template_values(ctx)["question"], template)
        inputs = judge_inputs(ctx)
        inputs.criterion = self.criterion
        reply = await ask_judge(ctx, JudgeAsk(SYSTEM_PROMPT, prompt, CONTRACT, inputs),
                                rating_of)
        rating, reason = reply.verdict
        return score_result(self, rating_score(rating, reason), details={"rating": rating},
                            **judged_fields(reply))
