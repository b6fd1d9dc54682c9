"""``EvalResult`` / ``EvalReport``: the typed API's results (seed 002).

``run_dataset`` (flows/dataset.py) builds them from agentv result records: a sample's
``Score`` is its evaluator's score and verdict (several evaluators: the case score, and
pass only if all pass); a target or evaluator error makes the sample unsuccessful.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from evaluators.score import Score


@dataclass(frozen=True, slots=True)
class EvalResult:
    """The result for one sample; ``record`` is the full agentv result record."""

    sample_id: str
    score: Score
    latency_ms: float
    error: str | None = None
    record: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    request_id: str | None = field(default=None, compare=False, repr=False)  # EvalLoop's

    @property
    def success(self) -> bool:
        return self.error is None


@dataclass(frozen=True, slots=True)
class EvalReport:
    results: tuple[EvalResult, ...]
    results_path: str | None = None

    @property
    def total(self) -> int:
        return len(self.results)

    @property
    def successful(self) -> int:
        return sum(1 for r in self.results if r.success)

    def _ok(self) -> list[EvalResult]:
        return [r for r in self.results if r.success]

    @property
    def pass_rate(self) -> float:
        ok = self._ok()
        return sum(1 for r in ok if r.score.passed) / len(ok) if ok else 0.0

    @property
    def mean_score(self) -> float:
        ok = self._ok()
        return math.fsum(r.score.value for r in ok) / len(ok) if ok else 0.0

    @property
    def mean_latency_ms(self) -> float:
        return sum(r.latency_ms for r in self.results) / len(self.results) if self.results else 0.0

    def failed_samples(self) -> tuple[EvalResult, ...]:
        """Samples that ran but did not pass."""
        return tuple(r for r in self.results if r.success and not r.score.passed)


def result_from_record(record: dict[str, Any]) -> EvalResult:
    results = record.get("evaluator_results") or []
    error = record.get("error") or next((r["error"] for r in results if r.get("error")), None)
    if error:
        score = Score(0.0, False, error)
    elif len(results) == 1:
        only = results[0]
        score = Score(only["score"], only["verdict"] == "pass", only.get("reasoning", ""))
    else:
        score = Score(record.get("score", 0.0), bool(results) and all(
            r["verdict"] == "pass" for r in results), record.get("reasoning", ""))
    return EvalResult(sample_id=record["eval_id"], score=score,
                      latency_ms=float(record.get("latency_ms") or 0.0), error=error,
                      record=record)


def report_from_records(records: list[dict[str, Any]], order: list[str],
                        results_path: str | None = None) -> EvalReport:
    rank = {sample_id: i for i, sample_id in enumerate(order)}
    ordered = sorted(records, key=lambda r: (rank.get(r["eval_id"], len(rank)), r.get("trial", 0)))
    return EvalReport(tuple(result_from_record(r) for r in ordered), results_path)
