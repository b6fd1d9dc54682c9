"""Per-key scores of one results file for ``agentv compare``, accumulated record by record:
each key (eval_id, trial, and the target when both files hold the same several targets)
gets its mean score, whether every record of it passed (score >= 0.8, no error), and how
many records share it. Keys keep the order they first appear in."""
from __future__ import annotations

import math
from typing import Any, Iterable

from agentv.evaluators.base import PASS_THRESHOLD
from agentv.tasks.results.measures import number

Key = tuple[Any, ...]


class KeyedScores:
    def __init__(self, keys: list[str]) -> None:
        self.keys = keys
        self.entries: dict[Key, list[Any]] = {}  # key → [known scores, all passed, records]

    def add(self, row: dict[str, Any]) -> None:
        key = tuple((row.get(k) or "") if k == "target" else row.get(k) for k in self.keys)
        score = number(row.get("score"))
        passed = score >= PASS_THRESHOLD and row.get("error") is None
        entry = self.entries.get(key)
        if entry is None:
            entry = self.entries[key] = [[], True, 0]
        if score == score:
            entry[0].append(score)
        entry[1] = entry[1] and passed
        entry[2] += 1

    def mean(self, key: Key) -> float:
        known = self.entries[key][0]
        return math.fsum(known) / len(known) if known else math.nan

    def passed(self, key: Key) -> bool:
        return bool(self.entries[key][1])

    def records_without(self, other: "KeyedScores") -> int:
        """Records whose key has no partner in ``other``."""
        return sum(e[2] for k, e in self.entries.items() if k not in other.entries)

    def __len__(self) -> int:
        return len(self.entries)


def keyed(rows: Iterable[dict[str, Any]], keys: list[str]) -> KeyedScores:
    scores = KeyedScores(keys)
    for row in rows:
        scores.add(row)
    return scores
