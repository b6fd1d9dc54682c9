"""``Score``: what a typed Python evaluator returns (seed 002's evals API).

``value`` is normalized to [0, 1]; ``passed`` is the binary outcome used for pass
rates; ``reason`` explains it. Plain data, no dependencies: importing the typed API
stays cheap.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

Rating = str  # one of RATING_VALUES' keys

RATING_VALUES: dict[str, float] = {
    "excellent": 1.0,  # fully meets the criterion
    "good": 0.75,  # meets it with minor issues
    "fair": 0.5,  # partially meets it
    "poor": 0.25,  # mostly fails it
    "wrong": 0.0,  # completely fails it
}
PASSING_RATINGS: frozenset[str] = frozenset({"excellent", "good"})


@dataclass(slots=True, frozen=True)
class Score:
    """Result of scoring one output."""

    value: float
    passed: bool
    reason: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.value, bool) or not isinstance(self.value, (int, float)):
            raise TypeError(f"Score.value must be a number, got {type(self.value).__name__}")
        if not math.isfinite(self.value):  # NaN would clamp to 1.0: an evaluator error instead
            raise ValueError(f"Score.value must be finite, got {self.value!r}")
        object.__setattr__(self, "value", max(0.0, min(1.0, float(self.value))))
        object.__setattr__(self, "passed", bool(self.passed))


def passed_score(passed: bool, reason: str = "") -> Score:
    return Score(value=1.0 if passed else 0.0, passed=passed, reason=reason)


def combine(outcomes: list[tuple[float, bool]], require_all: bool) -> tuple[float, bool]:
    """The one ``all_of`` / ``any_of`` rule, for typed functions and YAML members alike:
    ``all_of`` passes when every member passed and scores the mean; ``any_of`` passes when
    one member passed and scores the max. ``outcomes`` are (score, passed) pairs."""
    values = [value for value, _ in outcomes]
    passes = [passed for _, passed in outcomes]
    if require_all:
        return sum(values) / len(values), all(passes)
    return max(values), any(passes)


def as_score(value: Any) -> Score:
    """Coerce what a user evaluator returned: Score, bool, number, or {score, passed?, reason?}."""
    if isinstance(value, Score):
        return value
    if isinstance(value, bool):
        return passed_score(value)
    if isinstance(value, (int, float)):
        return Score(value=float(value), passed=float(value) >= 0.5)
    number_of = value.get("score", value.get("value")) if isinstance(value, dict) else None
    if isinstance(value, dict) and isinstance(number_of, (int, float)):
        number = float(number_of)
        reason = value.get("reason", value.get("reasoning", ""))
        return Score(value=number, passed=bool(value.get("passed", number >= 0.5)),
                     reason=reason if isinstance(reason, str) else str(reason))
    raise TypeError(f"an evaluator must return a Score, bool, number or mapping with 'score'; "
                    f"got {type(value).__name__}")


F = Any


def session_aware(fn: F) -> F:
    """Mark ``fn`` as session-aware although its session parameter is optional."""
    fn.__agentv_session_aware__ = True
    return fn


# Type aliases for evaluator functions (documentation only)
PlainEvaluator = Callable[[Any, Any], Score]
SessionEvaluator = Callable[[Any, Any, Any], Score]
