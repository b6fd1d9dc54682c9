"""The typed API's ``EvalReport`` numbers, counted by the statistics engine: samples, the
successful ones (no target or evaluator error), their pass rate (``Score.passed``) and
exactly rounded mean score (``tasks.results.measures.exact_mean``), and the mean latency
of all samples. ``report_of`` builds every ``EvalReport`` (``run_dataset``, the mailbox
client); ``report_from_records`` orders a run's records as the dataset's samples first."""
from __future__ import annotations

from array import array
from typing import Any, Iterable

from agentv.evaluators.report import EvalReport, EvalResult, ReportStats, result_from_record
from agentv.tasks.results.measures import exact_mean


class SampleTally:
    def __init__(self) -> None:
        self.total = self.passes = 0
        self.scores, self.latencies = array("d"), array("d")  # scores: successful samples

    def add(self, result: EvalResult) -> None:
        self.total += 1
        self.latencies.append(result.latency_ms)
        if result.success:
            self.scores.append(result.score.value)
            self.passes += result.score.passed

    def stats(self) -> ReportStats:
        ok = len(self.scores)
        return ReportStats(
            total=self.total, successful=ok, pass_rate=self.passes / ok if ok else 0.0,
            mean_score=exact_mean(self.scores) if ok else 0.0,
            mean_latency_ms=exact_mean(self.latencies) if self.total else 0.0)


def report_of(results: Iterable[EvalResult], results_path: str | None = None) -> EvalReport:
    tally = SampleTally()
    kept = tuple(results)
    for result in kept:
        tally.add(result)
    return EvalReport(kept, results_path, stats=tally.stats())


def report_from_records(records: list[dict[str, Any]], order: list[str],
                        results_path: str | None = None) -> EvalReport:
    """A run's records as a report, in the order of ``order`` (the samples' ids), trials
    of a sample by trial."""
    rank = {sample_id: i for i, sample_id in enumerate(order)}
    ordered = sorted(records, key=lambda r: (rank.get(r["eval_id"], len(rank)), r.get("trial", 0)))
    return report_of((result_from_record(r) for r in ordered), results_path)
