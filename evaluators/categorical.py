"""``categorical_judge``: the LLM judge picks a label for a configurable ``criterion``.

excellent / good / fair / poor / wrong → 1.0 / 0.75 / 0.5 / 0.25 / 0.0; the verdict is
pass for excellent or good, else fail. The reply must be ``{"rating", "reason"}`` with a
known label; anything else scores 0 with the raw reply kept (see ``evaluators.rating``).
``prompt`` (inline or a file beside the eval) may replace the template; it can use
``{{ criterion }}``, ``{{ question }}``, ``{{ output }}`` and ``{{ expected }}``.
"""
from __future__ import annotations

from pydantic import Field

from evaluators.base import EvalContext, Evaluator, EvaluatorResult
from evaluators.judge_call import ask_judge, broken_reply
from evaluators.llm_judge import load_prompt, template_values
from evaluators.rating import (DEFAULT_CRITERION, SYSTEM_PROMPT, build_prompt, parse_rating,
                               rating_score)
from evaluators.scored import score_result


class CategoricalJudge(Evaluator):
    kind = "categorical_judge"
    criterion: str = Field(default=DEFAULT_CRITERION, min_length=1)
    prompt: str | None = None

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        template = load_prompt(self.prompt, self.base_dir)
        expected = ctx.reference_answer or ctx.expected_outcome
        prompt = build_prompt(self.criterion, ctx.candidate_answer, expected,
                              template_values(ctx)["question"], template)
        reply = await ask_judge(ctx, SYSTEM_PROMPT, prompt)
        rating, reason = parse_rating(reply.text)
        if rating is None:
            return broken_reply(self, reply, misses=[
                "judge reply broke the rating contract "
                "(expected {\"rating\": <label>, \"reason\": ...})"],
                reasoning="The judge gave no valid rating.",
                warning="categorical_judge: no valid rating in the reply")
        return score_result(self, rating_score(rating, reason), details={"rating": rating},
                            evaluator_provider_request=reply.provider_request,
                            usage=reply.usage)
