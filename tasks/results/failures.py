"""The run's failed and errored cases, worst first, with the reason each failed: the
case's error, else its failing evaluator and that evaluator's reasoning or error. A sink
(tasks/results/sink.py) feeds every record's row; the console's FAILED block, the
``agentv-failures-…`` artifact, the flow run's log lines and its state's counts
("12 pass · 3 fail · 1 error · mean 0.810") read it. At most ``KEEP`` cases are kept
(the worst), so a 20,000-case run that fails everywhere stays small."""
from __future__ import annotations

import heapq
import json
from dataclasses import asdict, dataclass
from typing import Any

from agentv.providers.printable import printable
from agentv.tasks.results.case_rows import short
from agentv.tasks.results.problems import evaluator_problems

KEEP = 500


@dataclass(frozen=True, order=True)
class Failure:
    """One failed (verdict not pass) or errored case; ordered worst first."""

    rank: tuple[int, float]  # (0: errored, 1: failed; score): errors first, then lowest score
    eval_id: str
    target: str
    trial: int
    score: float | None
    verdict: str
    reason: str

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        del out["rank"]
        return out


def _evaluators(results: Any) -> list[dict[str, Any]]:
    if isinstance(results, str):
        try:
            results = json.loads(results)
        except ValueError:
            return []
    return [r for r in results or [] if isinstance(r, dict)]


def _score(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    return number if number == number else 0.0


def failing_evaluator(results: Any) -> str:
    """``name (score verdict): reasoning``: the lowest-scoring evaluator not passing."""
    failing = [r for r in _evaluators(results) if r.get("verdict") != "pass"]
    if not failing:
        return ""
    worst = min(failing, key=lambda r: _score(r.get("score")))
    name = worst.get("name") or worst.get("type") or "evaluator"
    why = worst.get("reasoning") or "; ".join(str(m) for m in worst.get("misses") or [])
    return f"{name} ({_score(worst.get('score')):.2f} {worst.get('verdict') or 'fail'}): {why}"


def reason(row: dict[str, Any], results: Any) -> str:
    """Why a case failed, on one line (at most 300 characters)."""
    if isinstance(row.get("error"), str) and row["error"]:
        return printable(short(f"error: {row['error']}", 300))
    errors = [f"{p.evaluator}: error: {p.message}" for p in evaluator_problems(results)
              if p.is_error]
    return printable(short(" | ".join(errors) or failing_evaluator(results)
                           or row.get("reasoning") or "", 300))


class Failures:
    """Counts of passed, failed and errored cases, and the ``KEEP`` worst failures."""

    def __init__(self) -> None:
        self.passed = self.failed = self.errored = 0
        self._worst: list[tuple[tuple[float, float], int, Failure]] = []  # a max-heap
        self._seen = 0

    def add(self, row: dict[str, Any], results: Any, redact: Any = str) -> None:
        """``row``: a row of the results schema; ``redact``: masks secrets in the reason."""
        errored = bool(row.get("error")) or any(p.is_error for p in evaluator_problems(results))
        if row.get("verdict") == "pass" and not errored:
            self.passed += 1
            return
        if errored:
            self.errored += 1
        else:
            self.failed += 1
        score = row.get("score")
        known = None if score is None or score != score else round(float(score), 3)
        failure = Failure((0 if errored else 1, known if known is not None else 0.0),
                          str(row.get("eval_id")), str(row.get("target") or ""),
                          int(row.get("trial") or 0), known,
                          "error" if errored else str(row.get("verdict") or "fail"),
                          redact(reason(row, results)))
        self._seen += 1
        entry = ((-failure.rank[0], -failure.rank[1]), -self._seen, failure)
        if len(self._worst) < KEEP:
            heapq.heappush(self._worst, entry)
        elif entry > self._worst[0]:
            heapq.heapreplace(self._worst, entry)

    def worst(self) -> list[Failure]:
        """The kept failures, worst first (then by case id, target, trial)."""
        return sorted(f for _, _, f in self._worst)

    def counts(self, mean: Any = None) -> str:
        """``12 pass · 3 fail · 1 error · mean 0.810``."""
        text = f"{self.passed} pass · {self.failed} fail · {self.errored} error"
        try:
            mean = float(mean)
        except (TypeError, ValueError):
            return text
        return text if mean != mean else f"{text} · mean {mean:.3f}"
