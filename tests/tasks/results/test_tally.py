"""A suite's mean is exact whatever the order of its records (scores counted, summed once)."""
from __future__ import annotations

import math
import random
from fractions import Fraction

from agentv.tasks.results.tally import SuiteCounts, Tally


def _row(i: int, score: float) -> dict:
    return {"eval_id": f"c{i}", "target": "t", "dataset": "d", "score": score,
            "verdict": "pass" if score >= 0.8 else "fail", "error": None,
            "case_key": f"suite.yaml::c{i}::t::0", "evaluator_results": "[]"}


def test_the_suite_mean_is_exact_and_order_free():
    scores = [0.1, 0.2, 0.7, 1.0, 0.0, 0.1, 1 / 3, float("nan")] * 50
    means = set()
    for seed in range(5):
        random.Random(seed).shuffle(scores)
        tally = Tally()
        for i, score in enumerate(scores):
            tally.add(_row(i, score), [])
        summary = tally.suite_summary("suite.yaml")
        means.add(summary["mean"])
        assert summary["total"] == len(scores)
    finite = [s for s in scores if not math.isnan(s)]
    assert means == {round(float(sum(map(Fraction, finite)) / len(finite)), 3)}


def test_score_sum_is_the_exact_sum_of_the_counted_scores():
    counts = SuiteCounts()
    counts.score_counts = {0.1: 3, 1.0: 2}
    assert counts.score_sum == Fraction(0.1) * 3 + 2
    assert SuiteCounts().score_sum == 0
