"""The breakdown keeps each value once: latencies per record, each group's records by
number, each evaluator's scores in its group."""
from __future__ import annotations

from agentv.tasks.results.tally import Tally


def row(i: int, target: str, score: float, evaluators: list[str]) -> dict:
    return {"eval_id": f"c{i}", "target": target, "dataset": "d", "score": score,
            "verdict": "pass" if score >= 0.8 else "fail", "latency_ms": 10.0 * (i + 1),
            "case_key": f"f::c{i}::{target}::0",
            "evaluator_results": [{"name": e, "score": score / 2, "verdict": "fail"}
                                  for e in evaluators]}


def test_interleaved_targets_and_evaluators_get_their_own_records():
    rows = [row(0, "a", 1.0, ["x"]), row(1, "b", 0.5, ["x", "y"]), row(2, "a", 0.0, []),
            row(3, "b", 0.9, ["y"]), row(4, "a", 0.6, ["x", "x"])]
    tally = Tally()
    for r in rows:
        tally.add(r)
    got = {(g["target"], g["evaluator"]): g for g in tally.breakdown()}
    assert got[("a", "(overall)")]["n"] == 3 and got[("a", "(overall)")]["mean"] == 0.5333
    assert got[("a", "(overall)")]["p50_latency_ms"] == 30.0  # records 0, 2, 4: 10, 30, 50
    assert got[("a", "x")]["n"] == 3 and got[("a", "x")]["mean"] == 0.3667  # .5, .3, .3
    assert got[("a", "x")]["p95_latency_ms"] == 50.0  # 10, 50, 50
    assert got[("b", "y")]["mean"] == 0.35 and got[("b", "y")]["p50_latency_ms"] == 30.0
    assert got[("b", "(overall)")]["median"] == 0.7


def test_each_group_lists_its_records():
    tally = Tally()
    for i in range(50):
        tally.add(row(i, "a", i / 50, ["x"]))
    assert all(list(g.records) == list(range(50)) for g in tally.groups.groups.values())
    assert tally.breakdown()[0]["n"] == 50
