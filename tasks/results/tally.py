"""agentv's one statistics engine: the statistics of a set of records, accumulated record by
record (no pandas, no second pass). A run feeds it as records are written; the report,
``agentv publish`` of a merged file and the nightly gate feed it the records of a file.

``Tally.add(row)`` takes one row of the results schema (``tasks.results.frames.record_to_row``,
or a row read back from a results file); ``summary()`` is the run's summary (the console's
SUMMARY, the summary artifact, the report's summary), ``breakdown()`` the per target ×
evaluator table (tasks/results/tally_groups.py), ``suite_summary(file)`` the numbers the
quality gates check for one eval file, ``case_trials()`` each case's trials (pass@k, the
report's trials table) and ``cells()`` each (target, eval_id)'s mean score (the report's
matrix). What it keeps is columns, no object per record or case: each record's score, pass
and error in arrays, and which case (target × dataset × eval_id) it is of
(tasks/results/tally_cases.py); the cases' sums and counts are made from them with numpy when
asked (``_case_sums``).
"""
from __future__ import annotations

import heapq
import math
import sys
from array import array
from fractions import Fraction
from typing import Any, NamedTuple

from agentv.tasks.results.measures import exact_mean, exact_std, histogram, number
from agentv.tasks.results.problems import evaluator_error_count
from agentv.tasks.results.tally_cases import CaseColumns
from agentv.tasks.results.tally_groups import Breakdown, evaluator_results
from agentv.tasks.results.trials import NORMAL_FROM, CaseTrials, bootstrap_ci, trials_summary


class SuiteCounts:
    """What the gates check for one eval file: total, mean, pass rate, errors."""

    __slots__ = ("n", "known", "score_sum", "passes", "errors", "evaluator_errors")

    def __init__(self) -> None:
        self.n = self.known = self.passes = self.errors = self.evaluator_errors = 0
        self.score_sum = Fraction(0)  # exact: the mean is the same whatever the order

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


class CaseSums(NamedTuple):
    """Per case (in first-record order, numpy arrays): trials, score sum, passes, errors."""

    trials: Any
    sums: Any
    passes: Any
    errors: Any


class Tally:
    def __init__(self) -> None:
        self.scores = array("d")
        self.passed, self.errored = bytearray(), bytearray()  # per record
        self.errors = self.evaluator_errors = self.passes = 0
        self.input_tokens = self.output_tokens = 0
        self.cost = self.judge_cost = 0.0
        self.cost_known = False
        self.case_of = CaseColumns()  # which case each record is of
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
        self.passed.append(passed)
        self.errored.append(errored)
        self.input_tokens += int(row.get("input_tokens") or 0)
        self.output_tokens += int(row.get("output_tokens") or 0)
        if row.get("cost_usd") is not None:
            self.cost += float(row["cost_usd"])
            self.cost_known = True
        self.judge_cost += float(row.get("judge_cost_usd") or 0.0)
        self.case_of.add(row.get("target"), _intern(row.get("dataset")), str(row["eval_id"]))
        suite = self._suite(row.get("case_key"))
        suite.n += 1
        if math.isfinite(score):  # as exact_mean: NaN (no score) is left out
            suite.score_sum += Fraction(score)
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

    def _case_sums(self) -> CaseSums:
        import numpy as np
        cases = self.case_of.group()
        scores = np.frombuffer(self.scores, dtype=float)
        passed = np.frombuffer(self.passed, dtype=np.uint8)
        errored = np.frombuffer(self.errored, dtype=np.uint8)
        if cases.of is None:  # a case a record: the records' own columns, not copied
            return CaseSums(np.ones(cases.n, dtype=np.int64), scores, passed, errored)

        def per_case(values: Any) -> Any:
            return np.bincount(cases.of, weights=values, minlength=cases.n)
        return CaseSums(np.bincount(cases.of, minlength=cases.n), per_case(scores),
                        per_case(passed).astype(np.int64), per_case(errored).astype(np.int64))

    def summary(self) -> dict[str, Any]:
        """total, errors, mean/median/min/max/std of the scores, histogram, top and bottom
        cases, tokens, costs, pass rate, 95% CI of the mean over cases, trials (or None)."""
        import numpy as np
        if not self.total:
            return {"total": 0, "errors": 0, "evaluator_errors": 0, "histogram": [0] * 5,
                    "top": [], "bottom": []}
        scores = np.frombuffer(self.scores, dtype=float)
        sums = self._case_sums()
        top, bottom = self._extremes(sums)
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
            "ci95": self._ci(sums), "trials": self._trials(sums),
        }

    def _ci(self, sums: CaseSums) -> list[float] | None:
        means = sums.sums / sums.trials
        if len(means) < NORMAL_FROM:  # the bootstrap's resamples: the cases in key order
            order = [case for _, case in sorted(self.case_of.keys())]
            means = means[order]
        pair = bootstrap_ci(means)  # else mean ± z·σ/√n: the order of the cases is moot
        return None if pair is None else [round(pair[0], 3), round(pair[1], 3)]

    def _means(self, sums: CaseSums) -> Any:
        """(mean, eval_id, raw target) of each case, one at a time."""
        for case, record in enumerate(self.case_of.group().firsts()):
            yield (float(sums.sums[case] / sums.trials[case]), self.case_of.eval_id(record),
                   self.case_of.raw_target(record))

    def _extremes(self, sums: CaseSums) -> tuple[list, list]:
        """Top and bottom 3 cases by mean score over (eval_id, target) (over its trials, so
        no case appears twice): mean descending, then eval_id, then target."""
        import numpy as np
        count = len(sums.trials)
        if len(self.case_of.datasets) <= 1 and not bool(np.isnan(sums.sums).any()):
            return self._extremes_of(lambda: self._means(sums), count)  # heaps, no sort
        per: dict[tuple[str, Any], list[float]] = {}
        for case, record in enumerate(self.case_of.group().firsts()):
            eval_id = self.case_of.eval_id(record)
            entry = per.setdefault((eval_id, self.case_of.raw_target(record)), [0.0, 0])
            entry[0] += float(sums.sums[case])
            entry[1] += int(sums.trials[case])
        ordered = sorted(((s / n, e, t) for (e, t), (s, n) in per.items()), key=_order)
        return self._extremes_of(lambda: iter(ordered), len(ordered), ordered)

    def _extremes_of(self, means: Any, count: int, ordered: list | None = None
                     ) -> tuple[list, list]:
        """``means()``: (mean, eval_id, target) of each case; the first n and last 3 in
        ``_order`` (``ordered`` when already sorted, else found with heaps)."""
        one_target = len([t for t in self.case_of.raw_targets if t is not None]) <= 1

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

    def _trials(self, sums: CaseSums) -> dict[str, Any] | None:
        if not len(sums.trials) or int(sums.trials.max()) < 2:  # no case ran twice
            return None
        return trials_summary(self.case_trials(sums))

    def case_trials(self, sums: CaseSums | None = None) -> list[CaseTrials]:
        """Each case's trials, in (target, dataset, eval_id) order."""
        sums = self._case_sums() if sums is None else sums
        return [CaseTrials(*key, int(sums.trials[i]), int(sums.passes[i]), float(sums.sums[i]))
                for key, i in sorted(self.case_of.keys())]

    def cells(self) -> dict[tuple[str, str], dict[str, Any]]:
        """(target, eval_id) → mean score over its trials, n, passes, errors."""
        sums = self._case_sums()
        per: dict[tuple[str, str], list[Any]] = {}
        for (target, _, eval_id), i in self.case_of.keys():
            cell = per.setdefault((target, eval_id), [0.0, 0, 0, 0])
            cell[0] += float(sums.sums[i])
            cell[1] += int(sums.trials[i])
            cell[2] += int(sums.passes[i])
            cell[3] += int(sums.errors[i])
        return {key: {"score": s / n, "n": n, "passes": p, "errors": e}
                for key, (s, n, p, e) in per.items()}
