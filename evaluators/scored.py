"""Bridges between typed ``Score`` functions and YAML evaluators.

``ScoreEvaluator`` subclasses compute a ``Score`` from the context; it becomes the
common result shape (passed → verdict pass and a hit, else fail and a miss).
``case_expected`` is "the case's expected answer" used when a check has no ``value``.
"""
from __future__ import annotations

from abc import abstractmethod
from typing import Any

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult
from agentv.evaluators.jsonutil import MISSING
from agentv.evaluators.score import Score

NO_EXPECTED = ("no expected value: set 'value' on the evaluator or give the case "
               "expected_messages")


def case_expected(ctx: EvalContext) -> Any:
    """The typed ``expected`` of a dataset sample, else structured expected content,
    else the reference answer text; ``MISSING`` when the case has none."""
    meta = ctx.case_metadata or {}
    if isinstance(meta, dict) and "expected" in meta:
        return meta["expected"]
    for message in reversed(ctx.expected_messages or []):
        content = message.get("content") if isinstance(message, dict) else None
        if message.get("role") == "assistant" and isinstance(content, dict):
            return content
    return ctx.reference_answer if ctx.reference_answer else MISSING


def configured_or_expected(ctx: EvalContext, value: Any) -> Any:
    """``value`` when configured, else the case's expected answer (or ``MISSING``)."""
    return value if value is not None else case_expected(ctx)


def score_result(evaluator: Evaluator, score: Score, **kw: Any) -> EvaluatorResult:
    label = evaluator.label
    reason = score.reason or f"{label} {'passed' if score.passed else 'failed'}"
    return evaluator.result(score.value, hits=[reason] if score.passed else [],
                            misses=[] if score.passed else [reason], reasoning=reason,
                            verdict="pass" if score.passed else "fail", **kw)


class ScoreEvaluator(Evaluator):
    """Base for evaluators defined by one ``Score``."""

    @abstractmethod
    async def score(self, ctx: EvalContext) -> Score:
        """The one Score this evaluator gives a case."""

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        return score_result(self, await self.score(ctx))

    def expected(self, ctx: EvalContext, value: Any = None) -> Any:
        """``value`` when configured, else the case's expected answer (or ``MISSING``)."""
        return configured_or_expected(ctx, value)
