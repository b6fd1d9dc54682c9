"""The cases of a tally: a dict keyed by each record's case key (target, dataset, eval_id),
each entry the case's running counts (trials, score sum, passes, errors), in the order the
case's first record came."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

Key = tuple[str, str, str]  # (target, dataset, eval_id); target "" when a record had none


@dataclass(slots=True)
class CaseCounts:
    raw_target: Any  # the first record's target as it came (None or a text)
    trials: int = 0
    score_sum: float = 0.0
    passes: int = 0
    errors: int = 0

    @property
    def mean(self) -> float:
        return self.score_sum / self.trials


class TallyCases:
    def __init__(self) -> None:
        self.by_key: dict[Key, CaseCounts] = {}
        self.raw_targets: dict[str, Any] = {}  # each target's key → its first raw value

    def __len__(self) -> int:
        return len(self.by_key)

    def add(self, raw_target: Any, dataset: str, eval_id: str, score: float, passed: bool,
            errored: bool) -> None:
        target = raw_target if isinstance(raw_target, str) else ""
        self.raw_targets.setdefault(target, raw_target)
        key = (target, dataset, eval_id)
        case = self.by_key.get(key)
        if case is None:
            case = self.by_key[key] = CaseCounts(raw_target)
        case.trials += 1
        case.score_sum += score
        case.passes += passed
        case.errors += errored

    def one_dataset(self) -> bool:
        return len({dataset for _, dataset, _ in self.by_key}) <= 1

    def has_nan(self) -> bool:
        return any(math.isnan(case.score_sum) for case in self.by_key.values())

    def named_targets(self) -> int:
        return sum(raw is not None for raw in self.raw_targets.values())

    def most_trials(self) -> int:
        return max((case.trials for case in self.by_key.values()), default=0)

    def in_key_order(self) -> list[tuple[Key, CaseCounts]]:
        return sorted(self.by_key.items(), key=lambda item: item[0])
