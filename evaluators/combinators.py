"""``all_of`` / ``any_of`` in YAML: member ``evaluators`` combined (seed 002 semantics).

``all_of`` passes when every member passes and scores the mean; ``any_of`` passes when
one member passes and scores the max (``evaluators.score.combine``, the rule the typed
``all_of``/``any_of`` functions use too). A member passes when its verdict is ``pass``.
Members nest (an ``all_of`` may hold an ``any_of``) and each keeps its own result.
"""
from __future__ import annotations

from typing import ClassVar

from pydantic import ValidationInfo, model_validator

from agentv.evaluators.base import EvalContext, EvaluatorResult
from agentv.evaluators.members import WithMembers, joined_reasoning, prefixed, run_members
from agentv.evaluators.score import combine


class _Combinator(WithMembers):
    require_all: ClassVar[bool] = True

    @model_validator(mode="after")
    def _build(self, info: ValidationInfo) -> "_Combinator":
        self.build_own_members(info)
        return self

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        results = await run_members(self._members, ctx)
        outcomes = [(r.score, r.verdict == "pass") for r in results]  # Score.passed → "pass"
        score, passed = combine(outcomes, self.require_all)
        count = sum(ok for _, ok in outcomes)
        return self.result(score, prefixed(results, "hits"), prefixed(results, "misses"),
                           joined_reasoning(results) or f"{count}/{len(results)} passed",
                           verdict="pass" if passed else "fail", children=results,
                           details={"passed_members": count, "members": len(results)})


class AllOf(_Combinator):
    """All member `evaluators` must pass; score = their mean."""
    kind = "all_of"
    require_all = True


class AnyOf(_Combinator):
    """One member of `evaluators` must pass; score = their max."""
    kind = "any_of"
    require_all = False
