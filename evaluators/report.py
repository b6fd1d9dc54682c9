"""``EvalResult`` / ``EvalReport``: the typed API's results (seed 002).

``run_dataset`` (flows/dataset.py) builds them from agentv result records: a sample's
``Score`` is its evaluator's score and verdict (several evaluators: the case score, and
pass only if all pass); a target or evaluator error makes the sample unsuccessful. A
report's numbers (``ReportStats``) are counted by agentv's statistics engine
(``tasks.results.tally_samples.report_of``), which builds every ``EvalReport``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentv.evaluators.score import Score


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
class ReportStats:
    """A report's numbers: samples, those without error, the pass rate and mean score of
    those, the mean latency of all (0.0 when there is none)."""

    total: int = 0
    successful: int = 0
    pass_rate: float = 0.0
    mean_score: float = 0.0
    mean_latency_ms: float = 0.0


@dataclass(frozen=True, slots=True)
class EvalReport:
    """The samples' results and their numbers; built by ``report_of`` (tasks/results/
    tally_samples.py), which counts ``stats`` from ``results``."""

    results: tuple[EvalResult, ...]
    results_path: str | None = None
    stats: ReportStats = field(kw_only=True)

    @property
    def total(self) -> int:
        return self.stats.total

    @property
    def successful(self) -> int:
        return self.stats.successful

    @property
    def pass_rate(self) -> float:
        return self.stats.pass_rate

    @property
    def mean_score(self) -> float:
        return self.stats.mean_score

    @property
    def mean_latency_ms(self) -> float:
        return self.stats.mean_latency_ms

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
