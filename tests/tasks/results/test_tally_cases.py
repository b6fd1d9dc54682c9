"""Which case each tally record belongs to, kept as columns: grouping by hash (checked), the
no-trials path that makes no per-record array, and the fallback when two cases share a hash."""
from __future__ import annotations

import agentv.tasks.load.offsets as offsets
import agentv.tasks.results.tally_cases as tally_cases
from agentv.tasks.results.tally import Tally
from agentv.tasks.results.tally_cases import CaseColumns


def columns(*keys: tuple[object, str, str]) -> CaseColumns:
    cases = CaseColumns()
    for target, dataset, eval_id in keys:
        cases.add(target, dataset, eval_id)
    return cases


def test_records_of_one_case_group_together_in_the_order_cases_first_came():
    cases = columns(("t", "d", "b"), ("t", "d", "a"), ("t", "d", "b"), (None, "d", "a"),
                    ("t", "d", "a"))
    grouped = cases.group()
    assert grouped.n == 3
    assert list(grouped.firsts()) == [0, 1, 3]
    assert grouped.of.tolist() == [0, 1, 0, 2, 1]
    assert [key for key, _ in cases.keys()] == [("t", "d", "b"), ("t", "d", "a"), ("", "d", "a")]
    assert cases.raw_target(3) is None and cases.raw_target(0) == "t"


def test_a_run_without_trials_makes_no_array_per_record():
    cases = columns(("t", "d", "a"), ("t", "d", "b"), ("u", "d", "a"), ("t", "e", "a"))
    grouped = cases.group()
    assert grouped.of is None and grouped.first is None and grouped.n == 4
    assert list(grouped.firsts()) == [0, 1, 2, 3]


def test_ids_keep_any_text():
    ids = ["ü-case", "emoji 🙂", "lone \udcff surrogate", ""]
    cases = columns(*(("t", "d", i) for i in ids))
    assert [cases.eval_id(r) for r in range(len(ids))] == ids


def test_ids_past_4_gib_get_8_byte_ends(monkeypatch):
    monkeypatch.setattr(offsets, "NARROW_MAX", 5)  # as if 4 GiB of ids came before
    cases = columns(("t", "d", "abc"), ("t", "d", "de"), ("t", "d", "fgh"))
    assert cases.ids.ends.typecode == "Q" and list(cases.ids.ends) == [3, 5, 8]
    assert [cases.eval_id(r) for r in range(3)] == ["abc", "de", "fgh"]


def test_two_cases_sharing_a_hash_are_told_apart_by_their_keys(monkeypatch):
    cases = columns(("t", "d", "a"), ("t", "d", "b"), ("t", "d", "a"))
    monkeypatch.setattr(tally_cases, "case_hash", lambda *_: 7)  # every record hashes alike
    grouped = cases.group()
    assert grouped.n == 2 and grouped.of.tolist() == [0, 1, 0]


def test_a_tally_counts_trials_per_case_whatever_the_hashes(monkeypatch):
    rows = [{"eval_id": e, "target": "t", "dataset": "d", "score": s,
             "verdict": "pass" if s >= 0.8 else "fail", "case_key": f"f::{e}::t::0"}
            for e, s in (("a", 1.0), ("b", 0.0), ("a", 0.0), ("b", 0.5))]
    plain, collided = Tally(), Tally()
    for row in rows:
        plain.add(row, [])
        collided.add(row, [])
    expected = [summed(plain)]
    monkeypatch.setattr(tally_cases, "case_hash", lambda *_: 1)  # every record hashes alike
    assert [summed(collided)] == expected
    assert expected[0][0] == [("a", 2, 1, 1.0), ("b", 2, 0, 0.5)]


def summed(tally: Tally) -> tuple:
    trials = [(c.eval_id, c.n, c.passes, c.score_sum) for c in tally.case_trials()]
    return trials, tally.cells()[("t", "a")]["score"], tally.summary()
