"""Per target × evaluator statistics accumulated record by record (the ``agentv-stats``
artifact and the report's breakdown tables): each target's overall score, and one group per
evaluator name from the records' ``evaluator_results`` (tokens and cost: the evaluator's own
judge usage; latency: the case's). Each group keeps its scores and latencies as compact float
arrays (medians and p95 need them) and running counts."""
from __future__ import annotations

import json
import math
from array import array
from typing import Any

from tasks.results.measures import BREAKDOWN_COLUMNS, NAN, OVERALL, exact_mean, exact_std, number


def _tokens(*values: Any) -> int:
    return int(sum(v for v in map(number, values) if not math.isnan(v)))


class Group:
    __slots__ = ("scores", "latencies", "passes", "errors", "tokens", "cost", "cost_known")

    def __init__(self) -> None:
        self.scores, self.latencies = array("d"), array("d")
        self.passes = self.errors = self.tokens = 0
        self.cost, self.cost_known = 0.0, False

    def add(self, score: float, passed: bool, errored: bool, latency: float, tokens: int,
            cost: float) -> None:
        self.scores.append(score)
        self.latencies.append(latency)
        self.passes += passed
        self.errors += errored
        self.tokens += tokens
        if not math.isnan(cost):
            self.cost += cost
            self.cost_known = True

    def row(self, target: str, evaluator: str) -> dict[str, Any]:
        import numpy as np
        scores = np.frombuffer(self.scores, dtype=float)
        latencies = np.frombuffer(self.latencies, dtype=float)
        n, known = len(scores), int(np.count_nonzero(~np.isnan(scores)))
        has_latency = bool(np.count_nonzero(~np.isnan(latencies)))
        values = {
            "n": n, "mean": exact_mean(self.scores) if known else NAN,
            "median": np.nanmedian(scores) if known else NAN,
            "std": exact_std(self.scores) if known >= 2 else NAN,
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

    def _group(self, target: str, evaluator: str) -> Group:
        group = self.groups.get((target, evaluator))
        if group is None:
            group = self.groups[(target, evaluator)] = Group()
        return group

    def add(self, row: dict[str, Any], results: list[Any], score: float, passed: bool,
            errored: bool) -> None:
        target = row.get("target") or ""
        latency = number(row.get("latency_ms"))
        self._group(target, OVERALL).add(
            score, passed, errored, latency, _tokens(row.get("input_tokens"),
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
                number(result.get("score")), result.get("verdict") == "pass",
                result.get("error") is not None, latency,
                _tokens(usage.get("input_tokens"), usage.get("output_tokens")),
                number(usage.get("cost_usd")))

    def table(self) -> list[dict[str, Any]]:
        return [self.groups[key].row(*key) for key in sorted(self.groups)]
