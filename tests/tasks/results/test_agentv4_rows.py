"""4.x records at the results file's edge: written with AgentV's keys only, read back with the
engine's keys (so report and compare take AgentV 4.x results files)."""
from __future__ import annotations

from agentv.tasks.results.agentv4_rows import as_internal, written

RECORD = {"timestamp": "2026-01-01T00:00:00.000Z", "eval_id": "t1", "case_key": "k",
          "evaluator_results": [], "test_id": "t1", "suite": "demo", "category": "x",
          "score": 0.5, "target": "agent", "error": None, "verdict": "fail",
          "scores": [{"name": "contains-a", "type": "contains", "score": 1, "weight": 1,
                      "verdict": "pass", "assertions": [{"text": "has a", "passed": True}]},
                     {"name": "equals-b", "type": "equals", "score": 0, "weight": 1,
                      "verdict": "fail", "assertions": [{"text": "not b", "passed": False}]}],
          "execution_status": "quality_failure", "record_format": "agentv-4"}


def test_written_keeps_agentvs_keys_in_its_order():
    out = written(RECORD)
    assert list(out) == ["timestamp", "test_id", "suite", "category", "score", "target",
                         "scores", "execution_status"]
    v2 = {"eval_id": "x", "score": 1.0, "error": None}
    assert written(v2) is v2


def test_read_back_fills_the_engines_keys():
    back = as_internal(written(RECORD))
    assert (back["eval_id"], back["dataset"], back["verdict"]) == ("t1", "demo", "fail")
    assert [(r["name"], r["hits"], r["misses"]) for r in back["evaluator_results"]] == [
        ("contains-a", ["has a"], []), ("equals-b", [], ["not b"])]
    assert as_internal({"eval_id": "x", "score": 1}) == {"eval_id": "x", "score": 1}
