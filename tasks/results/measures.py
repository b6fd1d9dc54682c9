"""The numbers every statistic of a run is made of, order-independent so a run's summary does
not depend on the order its cases finished in: exact mean and standard deviation, the score
histogram's bins, and the names of the breakdown table's columns."""
from __future__ import annotations

import math
from typing import Any, Iterable, Iterator, Sequence

BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
BIN_LABELS = ("[0.0, 0.2)", "[0.2, 0.4)", "[0.4, 0.6)", "[0.6, 0.8)", "[0.8, 1.0]")
OVERALL = "(overall)"
BREAKDOWN_COLUMNS = ["target", "evaluator", "n", "mean", "median", "std", "pass_rate",
                     "error_rate", "p50_latency_ms", "p95_latency_ms", "tokens", "cost_usd"]
NAN = float("nan")


def number(value: Any) -> float:
    """A float, NaN when missing or not numeric."""
    if value is None or isinstance(value, (dict, list)):
        return NAN
    try:
        return float(value)
    except (TypeError, ValueError):
        return NAN


def _sum_count(values: Iterable[float], mean: float | None = None) -> tuple[float, int]:
    """fsum of the non-NaN ``values`` (of their squared distances to ``mean`` if given) and
    their count, streamed: a run's 100,000 scores are not copied into a list at its end."""
    count = 0

    def known() -> Iterator[float]:
        nonlocal count
        for v in values:
            if v == v:
                count += 1
                yield v if mean is None else (v - mean) ** 2
    total = math.fsum(known())
    return total, count


def exact_mean(values: Iterable[float]) -> float:
    """The mean of the non-NaN ``values``, correctly rounded whatever their order
    (``math.fsum``): a rounded mean or a ``--fail-under`` gate never depends on the order
    cases finished in. NaN when there is none."""
    total, count = _sum_count(values)
    return total / count if count else math.nan


def exact_std(values: Iterable[float]) -> float:
    """The sample standard deviation (ddof=1) of the non-NaN ``values``, order-independent
    like ``exact_mean``. NaN below two values."""
    if not isinstance(values, Sequence):  # two passes: a generator is read once
        values = list(values)
    total, count = _sum_count(values)
    if count < 2:
        return math.nan
    squares, _ = _sum_count(values, total / count)
    return math.sqrt(squares / (count - 1))


def histogram(scores: Iterable[float]) -> list[int]:
    """Counts of scores in the five ``BIN_LABELS`` bins (a score below 0 or NaN in the
    first, 1.0 in the last)."""
    counts = [0] * 5
    for s in scores:
        counts[min(int(s * 5), 4) if s >= 0 else 0] += 1
    return counts
