"""agentv's one statistics engine: the statistics of a set of records, accumulated record by
record (no pandas, no second pass). A run feeds it as records are written; the report,
``agentv publish`` of a merged file and the nightly gate feed it the records of a file.

``Tally.add(row)`` takes one row of the results schema (``tasks.results.frames.record_to_row``,
or a row read back from a results file); ``summary()`` is the run's summary (the console's
SUMMARY, the summary artifact, the report's summary), ``breakdown()`` the per target ×
evaluator table (tasks/results/tally_groups.py), ``suite_summary(file)`` the numbers the
quality gates check for one eval file, ``case_trials()`` each case's trials (pass@k, the
report's trials table) and ``cells()`` each (target, eval_id)'s mean score (the report's
matrix). It keeps each record's score (medians need them all) and each case's running counts
in a dict by its key (target × dataset × eval_id, tasks/results/tally_cases.py).
"""
from __future__ import annotations

import heapq
import math
import sys
from array import array
from fractions import Fraction
from typing import Any, Iterator

from agentv.tasks.results.measures import exact_mean, exact_std, histogram, number
from agentv.tasks.results.problems import evaluator_error_count
from agentv.tasks.results.tally_cases import TallyCases
from agentv.tasks.results.tally_groups import Breakdown, evaluator_results
from agentv.tasks.results.trials import NORMAL_FROM, CaseTrials, bootstrap_ci, trials_summary


class SuiteCounts:
    """What the gates check for one eval file: total, mean, pass rate, errors."""

    __slots__ = ("n", "known", "score_counts", "passes", "errors", "evaluator_errors")

    def __init__(self) -> None:
        self.n = self.known = self.passes = self.errors = self.evaluator_errors = 0
        self.score_counts: dict[float, int] = {}  # each finite score → how many records had it

    @property
    def score_sum(self) -> Fraction:
        """Exact: the mean is the same whatever the order (summed when asked: a run's scores
        are few distinct values)."""
        return sum((Fraction(score) * count for score, count in self.score_counts.items()),
                   Fraction(0))

    def summary(self) -> dict[str, Any]:
        if not self.n:
            return {"total": 0, "errors": 0, "evaluator_errors": 0}
        return {"total": self.n, "errors": self.errors, "evaluator_errors": self.evaluator_errors,
                "mean": round(float(self.score_sum / self.known), 3) if self.known else math.nan,
                "pass_rate": round(self.passes / self.n, 3)}


def _intern(value: Any) -> str:
    return sys.intern(value) if isinstance(value, str) else ""


def _order(item: tuple[float, str, Any]) -> tuple[float, str, bool, str]:
    """Best first: mean descending, then eval_id, then target (None last)."""
    mean, eval_id, target = item
    return (-mean, eval_id, target is None, target or "")


class Tally:
    def __init__(self) -> None:
        self.scores = array("d")  # each record's
        self.errors = self.evaluator_errors = self.passes = 0
        self.input_tokens = self.output_tokens = 0
        self.cost = self.judge_cost = 0.0
        self.cost_known = False
        self.cases = TallyCases()
        self.suites: dict[str, SuiteCounts] = {}
        self.groups = Breakdown()

    def add(self, row: dict[str, Any], results: list[Any] | None = None) -> None:
        """One row of the results schema; ``results``: its evaluator results, parsed
        (else read from the row's JSON)."""
        results = evaluator_results(row.get("evaluator_results")) if results is None else results
        score = number(row.get("score"))
        passed = row.get("verdict") == "pass"
        self.scores.append(score)
        self.passes += passed
        ev_errors = evaluator_error_count(results)
        self.evaluator_errors += ev_errors
        errored = row.get("error") is not None
        self.errors += errored
        self.input_tokens += int(row.get("input_tokens") or 0)
        self.output_tokens += int(row.get("output_tokens") or 0)
        if row.get("cost_usd") is not None:
            self.cost += float(row["cost_usd"])
            self.cost_known = True
        self.judge_cost += float(row.get("judge_cost_usd") or 0.0)
        self.cases.add(row.get("target"), _intern(row.get("dataset")), str(row["eval_id"]),
                       score, passed, errored)
        suite = self._suite(row.get("case_key"))
        suite.n += 1
        if math.isfinite(score):  # as exact_mean: NaN (no score) is left out
            suite.score_counts[score] = suite.score_counts.get(score, 0) + 1
            suite.known += 1
        suite.passes += passed
        suite.errors += errored
        suite.evaluator_errors += ev_errors
        self.groups.add(row, results, score, passed, errored)

    def _suite(self, case_key: Any) -> SuiteCounts:
        name = case_key.split("::")[0] if isinstance(case_key, str) else ""
        counts = self.suites.get(name)
        if counts is None:
            counts = self.suites[sys.intern(name)] = SuiteCounts()
        return counts

    @property
    def total(self) -> int:
        return len(self.scores)

    def suite_summary(self, prefix: str) -> dict[str, Any]:
        return self.suites.get(prefix, SuiteCounts()).summary()

    def breakdown(self) -> list[dict[str, Any]]:
        return self.groups.table(self.scores)

    def summary(self) -> dict[str, Any]:
        """total, errors, mean/median/min/max/std of the scores, histogram, top and bottom
        cases, tokens, costs, pass rate, 95% CI of the mean over cases, trials (or None)."""
        import numpy as np
        if not self.total:
            return {"total": 0, "errors": 0, "evaluator_errors": 0, "histogram": [0] * 5,
                    "top": [], "bottom": []}
        scores = np.frombuffer(self.scores, dtype=float)
        top, bottom = self._extremes()
        return {
            "total": self.total, "errors": self.errors, "evaluator_errors": self.evaluator_errors,
            "mean": round(exact_mean(self.scores), 3),
            "median": round(float(np.nanmedian(scores)), 3),
            "min": round(float(np.nanmin(scores)), 3), "max": round(float(np.nanmax(scores)), 3),
            "std": round(exact_std(self.scores), 3) if self.total >= 2 else None,
            "histogram": histogram(self.scores), "top": top, "bottom": bottom,
            "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
            "cost_usd": round(self.cost, 6) if self.cost_known else None,
            "judge_cost_usd": round(self.judge_cost, 6),
            "pass_rate": round(self.passes / self.total, 3),
            "ci95": self._ci(), "trials": self._trials(),
        }

    def _ci(self) -> list[float] | None:
        cases = self.cases
        if len(cases) < NORMAL_FROM:  # the bootstrap's resamples: the cases in key order
            means = [case.mean for _, case in cases.in_key_order()]
        else:  # mean ± z·σ/√n: the order of the cases is moot
            means = [case.mean for case in cases.by_key.values()]
        pair = bootstrap_ci(means)
        return None if pair is None else [round(pair[0], 3), round(pair[1], 3)]

    def _means(self) -> Iterator[tuple[float, str, Any]]:
        """(mean, eval_id, raw target) of each case, one at a time."""
        for (_, _, eval_id), case in self.cases.by_key.items():
            yield case.mean, eval_id, case.raw_target

    def _extremes(self) -> tuple[list, list]:
        """Top and bottom 3 cases by mean score over (eval_id, target) (over its trials, so
        no case appears twice): mean descending, then eval_id, then target."""
        cases = self.cases
        if cases.one_dataset() and not cases.has_nan():
            return self._extremes_of(self._means, len(cases))  # heaps, no sort
        per: dict[tuple[str, Any], list[float]] = {}
        for (_, _, eval_id), case in cases.by_key.items():
            entry = per.setdefault((eval_id, case.raw_target), [0.0, 0])
            entry[0] += case.score_sum
            entry[1] += case.trials
        ordered = sorted(((s / n, e, t) for (e, t), (s, n) in per.items()), key=_order)
        return self._extremes_of(lambda: iter(ordered), len(ordered), ordered)

    def _extremes_of(self, means: Any, count: int, ordered: list | None = None
                     ) -> tuple[list, list]:
        """``means()``: (mean, eval_id, target) of each case; the first n and last 3 in
        ``_order`` (``ordered`` when already sorted, else found with heaps)."""
        one_target = self.cases.named_targets() <= 1

        def label(eval_id: str, target: Any) -> str:
            return eval_id if one_target else f"{eval_id} [{target}]"
        n = min(3, (count + 1) // 2)
        if ordered is not None:
            first, last = ordered[:n], ordered[n:][-3:][::-1]
        else:
            first = heapq.nsmallest(n, means(), key=_order)
            last = heapq.nlargest(min(3, count - n), means(), key=_order)
        top = [(label(e, t), round(s, 3)) for s, e, t in first]
        bottom = [(label(e, t), round(s, 3)) for s, e, t in last]
        return top, bottom

    def _trials(self) -> dict[str, Any] | None:
        if self.cases.most_trials() < 2:  # no case ran twice
            return None
        return trials_summary(self.case_trials())

    def case_trials(self) -> list[CaseTrials]:
        """Each case's trials, in (target, dataset, eval_id) order."""
        return [CaseTrials(*key, case.trials, case.passes, case.score_sum)
                for key, case in self.cases.in_key_order()]

    def cells(self) -> dict[tuple[str, str], dict[str, Any]]:
        """(target, eval_id) → mean score over its trials, n, passes, errors."""
        per: dict[tuple[str, str], list[Any]] = {}
        for (target, _, eval_id), case in self.cases.by_key.items():
            cell = per.setdefault((target, eval_id), [0.0, 0, 0, 0])
            cell[0] += case.score_sum
            cell[1] += case.trials
            cell[2] += case.passes
            cell[3] += case.errors
        return {key: {"score": s / n, "n": n, "passes": p, "errors": e}
                for key, (s, n, p, e) in per.items()}
