"""Trial statistics: per-case pass@k and pass^k, bootstrap confidence intervals, disagreement.

A case is one (target, dataset, eval_id); its trials are the records sharing it. A trial
passes when its verdict is ``pass`` (score >= 0.8, no error). With n trials and c passes:

* pass@k = 1 - C(n-c, k) / C(n, k) — unbiased estimate of P(at least one of k passes)
* pass^k = C(c, k) / C(n, k)       — unbiased estimate of P(all k pass)

Confidence intervals resample cases (not trials: trials of a case are not independent).
The tally (tasks/results/tally.py) counts each case's trials as the records arrive
(``CaseTrials``); ``trials_summary`` and ``case_table`` turn those counts into the numbers the
summary and the report show.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Any

CONFIDENCE = 0.95
RESAMPLES = 2000
NORMAL_FROM = 5000
BOOTSTRAP_CELLS = 250_000  # per chunk of resamples: ~4 MB of indices at any N


def pass_at_k(n: int, c: int, k: int) -> float:
    if k > n:
        raise ValueError(f"k={k} exceeds the {n} trial(s)")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    if k > n:
        raise ValueError(f"k={k} exceeds the {n} trial(s)")
    return comb(c, k) / comb(n, k)


def bootstrap_ci(values, resamples: int = RESAMPLES, seed: int = 0,
                 confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """Percentile bootstrap CI of the mean; None with fewer than two values. From
    ``NORMAL_FROM`` cases on, the normal interval the bootstrap converges to (mean ± z·σ/√n,
    σ with ddof=0 as the bootstrap's own): the bootstrap costs O(resamples × n) — ~0.6 s at
    20,000 cases, at the end of the run — and its Monte Carlo noise there exceeds the
    difference."""
    import numpy as np
    data = np.asarray(values if hasattr(values, "__len__") else list(values), dtype=float)
    if len(data) < 2:
        return None
    if len(data) >= NORMAL_FROM:
        from statistics import NormalDist
        z = NormalDist().inv_cdf(0.5 + confidence / 2)
        half = z * float(data.std()) / len(data) ** 0.5
        mean = float(data.mean())
        return mean - half, mean + half
    rng = np.random.default_rng(seed)
    per_chunk = max(1, BOOTSTRAP_CELLS // len(data))  # bounded memory for large runs
    means = np.concatenate([
        data[rng.integers(0, len(data), size=(min(per_chunk, resamples - done), len(data)))]
        .mean(axis=1) for done in range(0, resamples, per_chunk)])
    tail = (1.0 - confidence) / 2 * 100
    lo, hi = np.percentile(means, [tail, 100 - tail])
    return float(lo), float(hi)


@dataclass(frozen=True, slots=True)
class CaseTrials:
    """One case's trials as the tally counted them: n trials, passes, the sum of scores."""

    target: str
    dataset: str
    eval_id: str
    n: int
    passes: int
    score_sum: float

    @property
    def mean(self) -> float:
        return self.score_sum / self.n

    @property
    def disagree(self) -> bool:
        return 0 < self.passes < self.n


def case_table(cases: list[CaseTrials], k: int | None = None) -> list[dict[str, Any]]:
    """One row per case (in the order given): n trials, passes, mean score, pass@1, pass@k,
    pass^k (k: the fewest trials of any case unless given), whether its trials disagree."""
    k = k or min(c.n for c in cases)
    return [{"target": c.target, "dataset": c.dataset, "eval_id": c.eval_id, "n": c.n,
             "passes": c.passes, "mean": c.mean, "pass_at_1": c.passes / c.n,
             "pass_at_k": pass_at_k(c.n, c.passes, k), "pass_hat_k": pass_hat_k(c.n, c.passes, k),
             "k": k, "disagree": c.disagree} for c in cases]


def trials_summary(cases: list[CaseTrials]) -> dict[str, Any] | None:
    """pass@k / pass^k averaged over cases and the disagreeing cases (labelled with their
    target when there are several); None when no case ran more than once."""
    if not cases or max(c.n for c in cases) < 2:
        return None
    rows = case_table(cases)
    many = len({c.target for c in cases}) > 1
    return {
        "k": rows[0]["k"], "cases": len(rows), "max_trials": max(c.n for c in cases),
        "pass_at_1": round(sum(r["pass_at_1"] for r in rows) / len(rows), 3),
        "pass_at_k": round(sum(r["pass_at_k"] for r in rows) / len(rows), 3),
        "pass_hat_k": round(sum(r["pass_hat_k"] for r in rows) / len(rows), 3),
        "disagreeing": [f"{c.eval_id} [{c.target}]" if many else c.eval_id
                        for c in cases if c.disagree],
    }


def shorten(labels: list[str], limit: int = 10) -> str:
    """``a, b, c … and 12 more`` for long lists of case labels."""
    text = ", ".join(labels[:limit])
    return text + (f" … and {len(labels) - limit} more" if len(labels) > limit else "")
