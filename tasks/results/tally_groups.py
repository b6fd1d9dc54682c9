"""Per target × evaluator statistics accumulated record by record (the ``agentv-stats``
artifact and the report's breakdown tables): each target's overall score, and one group per
evaluator name from the records' ``evaluator_results`` (tokens and cost: the evaluator's own
judge usage; latency: the case's). Medians and p95 need every value: each record's latency
is kept here, each record's score in the tally (tasks/results/tally.py), each evaluator's
scores in its group, and each group lists its records by number."""
from __future__ import annotations

import json
import math
from array import array
from typing import Any

from agentv.tasks.results.measures import (
    BREAKDOWN_COLUMNS,
    NAN,
    OVERALL,
    exact_mean,
    exact_std,
    number,
)


def _tokens(*values: Any) -> int:
    return int(sum(v for v in map(number, values) if not math.isnan(v)))


class Group:
    """One (target, evaluator): its records, its own scores (None for a target's overall
    group: the records' scores are its scores) and running counts."""

    __slots__ = ("scores", "records", "passes", "errors", "tokens", "cost", "cost_known")

    def __init__(self, own_scores: bool) -> None:
        self.scores = array("d") if own_scores else None
        self.records = array("I")  # the numbers of its records
        self.passes = self.errors = self.tokens = 0
        self.cost, self.cost_known = 0.0, False

    def add(self, record: int, score: float, passed: bool, errored: bool, tokens: int,
            cost: float) -> None:
        if self.scores is not None:
            self.scores.append(score)
        self.records.append(record)
        self.passes += passed
        self.errors += errored
        self.tokens += tokens
        if not math.isnan(cost):
            self.cost += cost
            self.cost_known = True

    def row(self, target: str, evaluator: str, record_scores: Any, latencies: Any
            ) -> dict[str, Any]:
        """``record_scores``, ``latencies``: numpy arrays, one value a record."""
        import numpy as np
        records = np.frombuffer(self.records, dtype=np.uint32)
        scores = (record_scores[records] if self.scores is None
                  else np.frombuffer(self.scores, dtype=float))
        exact = np.ascontiguousarray(scores).data  # a sequence of floats (a memoryview)
        latencies = latencies[records]
        n, known = len(scores), int(np.count_nonzero(~np.isnan(scores)))
        has_latency = bool(np.count_nonzero(~np.isnan(latencies)))
        values = {
            "n": n, "mean": exact_mean(exact) if known else NAN,
            "median": np.nanmedian(scores) if known else NAN,
            "std": exact_std(exact) if known >= 2 else NAN,
            "pass_rate": self.passes / n, "error_rate": self.errors / n,
            "p50_latency_ms": np.nanquantile(latencies, 0.5) if has_latency else NAN,
            "p95_latency_ms": np.nanquantile(latencies, 0.95) if has_latency else NAN,
            "tokens": int(self.tokens), "cost_usd": self.cost if self.cost_known else NAN}
        row: dict[str, Any] = {"target": target, "evaluator": evaluator}
        for name, value in values.items():
            if isinstance(value, int):
                row[name] = value
            else:
                value = float(np.round(float(value), 4))
                row[name] = None if math.isnan(value) else value
        return {c: row[c] for c in BREAKDOWN_COLUMNS}


def evaluator_results(raw: Any) -> list[Any]:
    """A row's evaluator results (JSON text, or the record's list) as a list."""
    try:
        items = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return []
    return items if isinstance(items, list) else []


class Breakdown:
    def __init__(self) -> None:
        self.groups: dict[tuple[str, str], Group] = {}
        self.latencies = array("d")  # each record's

    def _group(self, target: str, evaluator: str) -> Group:
        group = self.groups.get((target, evaluator))
        if group is None:
            group = self.groups[(target, evaluator)] = Group(evaluator != OVERALL)
        return group

    def add(self, row: dict[str, Any], results: list[Any], score: float, passed: bool,
            errored: bool) -> None:
        target = row.get("target") or ""
        record = len(self.latencies)
        self.latencies.append(number(row.get("latency_ms")))
        self._group(target, OVERALL).add(
            record, score, passed, errored, _tokens(row.get("input_tokens"),
                                                    row.get("output_tokens")),
            number(row.get("cost_usd")))
        for result in results:
            if not isinstance(result, dict):
                continue
            name = result.get("name") or result.get("type")
            if not name:
                continue
            raw_usage = result.get("usage")
            usage: dict[str, Any] = raw_usage if isinstance(raw_usage, dict) else {}
            self._group(target, str(name)).add(
                record, number(result.get("score")), result.get("verdict") == "pass",
                result.get("error") is not None,
                _tokens(usage.get("input_tokens"), usage.get("output_tokens")),
                number(usage.get("cost_usd")))

    def table(self, record_scores: Any) -> list[dict[str, Any]]:
        """``record_scores``: each record's score (the tally's column)."""
        import numpy as np
        scores = np.frombuffer(record_scores, dtype=float)
        latencies = np.frombuffer(self.latencies, dtype=float)
        return [self.groups[key].row(*key, scores, latencies) for key in sorted(self.groups)]
