"""Offsets stay 4 bytes each until one passes 4 GiB, then the column widens to 8."""
from __future__ import annotations

import agentv.tasks.load.offsets as offsets_module
from agentv.tasks.load.case_store import CaseStore
from agentv.tasks.load.offsets import appended, offsets


def test_offsets_are_4_bytes_until_one_passes_4_gib():
    column = appended(appended(offsets(), 7), 0xFFFFFFFF)
    assert column.typecode == "I" and list(column) == [7, 0xFFFFFFFF]
    wide = appended(column, 0x1_0000_0000)
    assert wide.typecode == "Q" and list(wide) == [7, 0xFFFFFFFF, 0x1_0000_0000]


def test_a_store_past_the_limit_still_reads_each_case(monkeypatch):
    monkeypatch.setattr(offsets_module, "NARROW_MAX", 10)  # as if 4 GiB came before
    store = CaseStore()
    for value in ({"id": "a"}, {"id": "bb", "input": "x" * 20}, {"id": "c"}):
        store.pack_in(value)
    assert store.ends.typecode == "Q"
    assert [store.unpacked(i)["id"] for i in range(3)] == ["a", "bb", "c"]
