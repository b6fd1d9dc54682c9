"""One AgentV 4.x assertion: any evaluator under the assertion's own `name`, `type`,
`weight`, ``required`` (true: the case's threshold; a number: that minimum), ``min_score`` and
``negate`` — its result is recorded with the 4.x name and type (``llm-grader`` for rubrics, as
AgentV records them).

``negate`` decides the verdict on the raw score (AgentV's: pass at 0.8), then turns the score
into 1 − score and swaps pass and fail (AgentV's ``negateScore``: 0.667 → 0.333, pass);
``required`` and ``min_score`` are read by the case's scoring (``evaluators.outcome4``): a
required assertion below its minimum makes the case's score 0.
"""
from __future__ import annotations

from typing import Any

from pydantic import Field, StrictBool, field_validator

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult, run_evaluator
from agentv.evaluators.outcome4 import grader_verdict

_SWAPPED = {"pass": "fail", "fail": "pass"}


class Gated(Evaluator):
    """An evaluator with AgentV 4.x's `required`, `min_score` and `negate`."""
    kind = "gated"
    inner: Any
    required: bool | float | None = None
    min_score: float | None = Field(default=None, ge=0, le=1)
    negate: StrictBool = False  # 'no' is not false: a typo is an error, not a silent flip

    @field_validator("required", mode="before")
    @classmethod
    def _required(cls, value: Any) -> Any:
        """true, false or a minimum score from 0 to 1 (not 'yes', not 2)."""
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, (int, float)) and 0 <= value <= 1:
            return float(value)
        raise ValueError(f"must be true, false or a minimum score from 0 to 1, got {value!r}")
    implicit: bool = False  # the llm-grader AgentV adds to a test with criteria only

    @property
    def label(self) -> str:
        return self.name or self.inner.label

    def minimum(self, threshold: float) -> float | None:
        """The score this assertion must reach, or None when it is not required (AgentV:
        ``min_score`` ?? a numeric ``required`` ?? the case's threshold)."""
        if not self.required:
            return None
        if self.min_score is not None:
            return self.min_score
        if self.required is True:
            return threshold
        return float(self.required)

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        result = await run_evaluator(self.inner, ctx)
        result.name, result.type, result.weight = self.label, self.type or result.type, self.weight
        if not self.negate:
            return result
        verdict = grader_verdict(result)  # AgentV decides the verdict, then negates it
        result.score = 1.0 - result.score
        result.verdict, result.negated = _SWAPPED.get(verdict, verdict), True
        result.hits, result.misses = result.misses, result.hits
        if result.assertions is not None:
            result.assertions = [{**a, "passed": not a.get("passed"),
                                  **({"evidence": f"[Negated] {a['evidence']}"}
                                     if a.get("evidence") else {})}
                                 for a in result.assertions]
        return result
