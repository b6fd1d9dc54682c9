"""Which case each record of a tally belongs to, kept as columns (no object per record or per
case): the case is (target, dataset, eval_id); a 100,000-record run keeps ~18 bytes a record
here, and its memory stays flat as suites grow.

Each record appends its target's and dataset's index and its eval_id's UTF-8 bytes (one
buffer). ``group()`` — at the end of a run, or when a report asks — hashes each record's
three (``case_hash``) and groups the records into cases with numpy (``np.unique`` of the
hashes: each case's records, its first record, its number of trials); when a case has more
than one record it checks the groups are exact (same target, dataset and CRC-32 of the id
as the group's first record); a hash collision, which that check would catch, falls back to
grouping the ids themselves. Hashes and checksums are made when grouping, never kept.
"""
from __future__ import annotations

import zlib
from array import array
from typing import Any, Iterator, NamedTuple

from agentv.tasks.load.offsets import Texts

Key = tuple[str, str, str]  # (target, dataset, eval_id); target "" when a record had none


def case_hash(target: int, dataset: int, eval_id: bytes) -> int:
    """A record's case hash (Python's: this process's only)."""
    return hash((target, dataset, eval_id))


class Cases(NamedTuple):
    """The cases, in the order their first record came: each one's first record
    (``first``) and, for every record, its case (``of``); both None when every record is a
    case of its own (a run without trials: no array per record is made)."""

    first: Any  # numpy int64 array, one per case
    of: Any  # numpy int64 array, one per record
    n: int

    def firsts(self) -> Iterator[int]:
        """Each case's first record."""
        return iter(range(self.n)) if self.first is None else iter(self.first.tolist())


class CaseColumns:
    def __init__(self) -> None:
        self.targets: list[str] = []  # the key ("" for none) of each target index
        self.raw_targets: list[Any] = []  # the first raw value (None or text) of each
        self.datasets: list[str] = []
        self._target_ix: dict[str, int] = {}
        self._dataset_ix: dict[str, int] = {}
        self.target_of, self.dataset_of = array("H"), array("H")
        self.ids = Texts()  # each record's eval_id
        self._grouped: Cases | None = None

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, raw_target: Any, dataset: str, eval_id: str) -> None:
        target = raw_target if isinstance(raw_target, str) else ""
        t = self._target_ix.get(target)
        if t is None:
            t = self._target_ix[target] = len(self.targets)
            self.targets.append(target)
            self.raw_targets.append(raw_target)
        d = self._dataset_ix.get(dataset)
        if d is None:
            d = self._dataset_ix[dataset] = len(self.datasets)
            self.datasets.append(dataset)
        self.target_of.append(t)
        self.dataset_of.append(d)
        self.ids.append(eval_id)
        self._grouped = None

    def eval_id(self, record: int) -> str:
        return self.ids[record]

    def key(self, record: int) -> Key:
        """The case key of ``record``."""
        return (self.targets[self.target_of[record]], self.datasets[self.dataset_of[record]],
                self.eval_id(record))

    def raw_target(self, record: int) -> Any:
        return self.raw_targets[self.target_of[record]]

    def group(self) -> Cases:
        if self._grouped is None:
            self._grouped = self._by_hash() or self._by_key()
        return self._grouped

    def _by_hash(self) -> Cases | None:
        import numpy as np
        records = zip(self.target_of, self.dataset_of, self.ids.each_encoded())
        hashes = np.fromiter((case_hash(*record) for record in records), dtype=np.int64,
                             count=len(self))
        ordered = np.sort(hashes)
        if not bool((ordered[1:] == ordered[:-1]).any()):  # no case has a second record
            return Cases(None, None, len(hashes))
        del ordered
        _, first, of = np.unique(hashes, return_index=True, return_inverse=True)
        checks = np.fromiter(map(zlib.crc32, self.ids.each_encoded()), dtype=np.uint32,
                             count=len(self))
        for values in (np.frombuffer(self.target_of, dtype=np.uint16),
                       np.frombuffer(self.dataset_of, dtype=np.uint16), checks):
            if not np.array_equal(values, values[first][of]):
                return None  # two cases share a hash: group by their keys instead
        return _in_first_order(first, of)

    def _by_key(self) -> Cases:
        import numpy as np
        index: dict[Key, int] = {}
        first: list[int] = []
        of: list[int] = []
        for record in range(len(self)):
            case = index.setdefault(self.key(record), len(first))
            if case == len(first):
                first.append(record)
            of.append(case)
        return Cases(np.array(first, dtype=np.int64), np.array(of, dtype=np.int64), len(first))

    def keys(self) -> Iterator[tuple[Key, int]]:
        """Each case's key and number (in first-record order)."""
        for case, record in enumerate(self.group().firsts()):
            yield self.key(record), case


def _in_first_order(first: Any, of: Any) -> Cases:
    """``np.unique``'s groups (by hash) renumbered in the order their first record came."""
    import numpy as np
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return Cases(first[order], rank[of], len(first))
