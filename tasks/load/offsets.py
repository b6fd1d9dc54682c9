"""Byte offsets kept as a column, 4 bytes each until one passes 4 GiB, then 8 (the ends of a
store's packed cases), and ``Texts``: many short texts as one UTF-8 buffer and the offsets
of their ends, no ``str`` object each (a store's case ids, tasks/load/case_store.py; a
tally's eval_ids, tasks/results/tally_cases.py)."""
from __future__ import annotations

from array import array
from typing import Iterator

NARROW_MAX = 0xFFFFFFFF  # the largest offset 4 bytes hold


def offsets() -> array:
    return array("I")


def appended(column: array, offset: int) -> array:
    """``column`` with ``offset`` appended: the same array, or an 8-byte copy of it once an
    offset passes ``NARROW_MAX``."""
    if offset > NARROW_MAX and column.typecode == "I":
        column = array("Q", column)
    column.append(offset)
    return column


class Texts:
    """Texts appended one by one, read back by number (any text: lone surrogates too)."""

    __slots__ = ("data", "ends")

    def __init__(self) -> None:
        self.data, self.ends = bytearray(), offsets()

    def __len__(self) -> int:
        return len(self.ends)

    def append(self, text: str) -> None:
        self.data += text.encode("utf-8", "surrogatepass")
        self.ends = appended(self.ends, len(self.data))

    def encoded(self, i: int) -> bytes:
        return bytes(self.data[self.ends[i - 1] if i else 0:self.ends[i]])

    def __getitem__(self, i: int) -> str:
        return self.encoded(i).decode("utf-8", "surrogatepass")

    def each_encoded(self) -> Iterator[bytes]:
        data, start = self.data, 0
        for end in self.ends:
            yield bytes(data[start:end])
            start = end
