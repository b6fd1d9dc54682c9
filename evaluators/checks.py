"""Deterministic checks on the answer (seed 002): ``json_subset``, ``within_tolerance``
(``exact_match``, ``contains``, ``is_json``: evaluators.text_assertions, one class each for both
generations).

A missing ``value`` means the case's expected answer (``case_expected``). Each check is
the typed function of ``evaluators.functions`` applied to the candidate answer.
"""
from __future__ import annotations

from typing import Any

from pydantic import Field

from agentv.evaluators import functions as fn
from agentv.evaluators.base import EvalContext
from agentv.evaluators.jsonutil import MISSING, parse_json
from agentv.evaluators.score import Score, passed_score
from agentv.evaluators.scored import NO_EXPECTED, ScoreEvaluator


class JsonSubset(ScoreEvaluator):
    """The answer's JSON contains `value` (nested mappings recurse)."""
    kind = "json_subset"
    value: Any = None

    async def score(self, ctx: EvalContext) -> Score:
        expected = self.expected(ctx, self.value)
        if expected is MISSING:
            return passed_score(False, NO_EXPECTED)
        try:
            expected = parse_json(expected)
        except ValueError:
            return passed_score(False, "the expected value is not JSON")
        return fn.json_subset(ctx.candidate_answer, expected)


class WithinTolerance(ScoreEvaluator):
    """The answer's last number is within `tolerance` of `value` (`relative`: a fraction of it)."""
    kind = "within_tolerance"
    value: float | str | None = None
    tolerance: float = Field(ge=0)
    relative: bool = False

    async def score(self, ctx: EvalContext) -> Score:
        expected = self.expected(ctx, self.value)
        if expected is MISSING:
            return passed_score(False, NO_EXPECTED)
        return fn.within_tolerance(self.tolerance, relative=self.relative)(
            ctx.candidate_answer, expected)
