"""Byte offsets kept as a column, 4 bytes each until one passes 4 GiB, then 8: the ends of a
store's packed cases and of its ids (tasks/load/case_store.py), of a tally's ids
(tasks/results/tally_cases.py)."""
from __future__ import annotations

from array import array

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
