"""The cases of a tally: a dict by (target, dataset, eval_id), in the order each case's
first record came, with its running counts."""
from __future__ import annotations

import math

from agentv.tasks.results.tally import Tally
from agentv.tasks.results.tally_cases import TallyCases


def cases_of(*records: tuple[object, str, str, float]) -> TallyCases:
    cases = TallyCases()
    for target, dataset, eval_id, score in records:
        cases.add(target, dataset, eval_id, score, score >= 0.8, False)
    return cases


def test_records_of_one_case_count_together_in_the_order_cases_first_came():
    cases = cases_of(("t", "d", "b", 1.0), ("t", "d", "a", 0.0), ("t", "d", "b", 0.5),
                     (None, "d", "a", 1.0), ("t", "d", "a", 1.0))
    assert list(cases.by_key) == [("t", "d", "b"), ("t", "d", "a"), ("", "d", "a")]
    b, a, none = cases.by_key.values()
    assert (b.trials, b.score_sum, b.passes, b.mean) == (2, 1.5, 1, 0.75)
    assert (a.trials, a.passes) == (2, 1)
    assert none.raw_target is None and b.raw_target == "t"
    assert cases.most_trials() == 2 and cases.named_targets() == 1
    assert [key for key, _ in cases.in_key_order()] == [("", "d", "a"), ("t", "d", "a"),
                                                        ("t", "d", "b")]


def test_ids_keep_any_text():
    ids = ["ü-case", "emoji 🙂", "lone \udcff surrogate", ""]
    cases = cases_of(*(("t", "d", i, 1.0) for i in ids))
    assert [eval_id for _, _, eval_id in cases.by_key] == ids


def test_datasets_and_missing_scores_are_seen():
    cases = cases_of(("t", "d", "a", 1.0), ("t", "e", "a", math.nan))
    assert not cases.one_dataset() and cases.has_nan()
    assert cases_of(("t", "d", "a", 1.0)).one_dataset()


def test_a_tally_counts_trials_per_case():
    rows = [{"eval_id": e, "target": "t", "dataset": "d", "score": s,
             "verdict": "pass" if s >= 0.8 else "fail", "case_key": f"f::{e}::t::0"}
            for e, s in (("a", 1.0), ("b", 0.0), ("a", 0.0), ("b", 0.5))]
    tally = Tally()
    for row in rows:
        tally.add(row, [])
    trials = [(c.eval_id, c.n, c.passes, c.score_sum) for c in tally.case_trials()]
    assert trials == [("a", 2, 1, 1.0), ("b", 2, 0, 0.5)]
    assert tally.cells()[("t", "a")]["score"] == 0.5
    assert tally.summary()["trials"] is not None
