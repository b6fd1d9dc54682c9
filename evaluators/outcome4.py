"""A case's score and execution status as AgentV 4.42.4 computes them (``orchestrator.ts``).

Each grader's verdict is pass at a score of 0.8 or more, else fail, or ``skip`` when it could
not grade at all (a judge whose reply could not be read); the case's score is 0 when a
required assertion is below its minimum, else the weighted mean of the graders that did not
skip (0 when none). The execution status is ``execution_error`` when a grader skipped (the
score is then 0), else ``ok`` at or above the case's threshold (default 0.8), else
``quality_failure``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from agentv.evaluators.base import EvaluatorResult

DEFAULT_THRESHOLD = 0.8
JUDGE_TYPES = frozenset({"llm-grader", "rubrics"})
STATUS_VERDICTS = {"ok": "pass", "quality_failure": "fail", "execution_error": "error"}


def grader_verdict(result: EvaluatorResult) -> str:
    """pass / fail / skip. A composite's own verdict stands (its ``threshold`` aggregator
    passes below 0.8); every other grader passes at 0.8."""
    if result.verdict == "skip" or (result.error and result.type in JUDGE_TYPES):
        return "skip"
    if result.negated and result.verdict in ("pass", "fail"):  # decided before negation
        return result.verdict
    if result.type == "composite" and result.verdict in ("pass", "fail"):
        return result.verdict
    if result.verdict == "fail":  # a judge's failed required rubric fails at any score
        return "fail"
    return "pass" if result.score >= DEFAULT_THRESHOLD else "fail"


@dataclass
class Outcome:
    score: float
    execution_status: str
    error: str | None = None
    failure_stage: str | None = None
    failure_reason_code: str | None = None


def case_outcome(results: Sequence[EvaluatorResult], evaluators: Sequence[Any],
                 threshold: float | None) -> Outcome:
    """``evaluators`` are the case's (``Gated`` ones carry ``required``/``min_score``)."""
    limit = DEFAULT_THRESHOLD if threshold is None else threshold
    if evaluators and all(getattr(e, "implicit", False) for e in evaluators):
        score = results[0].score if results and not results[0].error else 0.0
        return Outcome(score, "ok" if score >= limit else "quality_failure")
    verdicts = [grader_verdict(r) for r in results]
    skipped = [(r, v) for r, v in zip(results, verdicts) if v == "skip"]
    if skipped:
        return Outcome(0.0, "execution_error", _skip_message(skipped), "evaluator",
                       "evaluator_error")
    required_failed = any(
        (minimum := getattr(e, "minimum", lambda _t: None)(limit)) is not None
        and r.score < minimum for e, r in zip(evaluators, results))
    scorable = [r for r in results]
    total = sum(r.weight for r in scorable)
    score = 0.0 if required_failed or total <= 0 else (
        sum(r.score * r.weight for r in scorable) / total)
    return Outcome(score, "ok" if score >= limit else "quality_failure")


def _skip_message(skipped: list[tuple[EvaluatorResult, str]]) -> str:
    parts = [f"{r.name or r.type}: {_first_failed(r)}" for r, _v in skipped]
    return parts[0] if len(parts) == 1 else f"Graders skipped: {' | '.join(parts)}"


def _first_failed(result: EvaluatorResult) -> str:
    for item in result.assertions or []:
        if not item.get("passed"):
            return str(item.get("text"))
    return result.error or "Grader skipped"
