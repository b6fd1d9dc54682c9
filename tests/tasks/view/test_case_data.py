"""One case in full: turns, answer, expected outcome, evaluators with rubric items, the
trace, file changes, and the other target's answer with its diff."""
from __future__ import annotations

from agentv.tasks.results.frames import load_table
from agentv.tasks.view.case_data import case_data, evaluators
from agentv.tasks.view.index import RunIndex
from tests.tasks.view.records import geo_run


def test_the_failing_case_beside_the_other_target(tmp_path):
    path = geo_run(tmp_path / "eval_m.jsonl", ("alpha", "beta"))
    run = RunIndex([tmp_path]).runs()[0]
    members = [r for r in load_table(path).to_pylist() if r["eval_id"] == "capital-france"]
    data = case_data(run, members, "beta", None)
    assert (data["verdict"], data["target"], data["answer"]) == ("fail", "beta",
                                                                 "The capital is Lyon.")
    assert data["reason"].startswith("judge (0.20 fail)")
    assert [t["role"] for t in data["turns"]] == ["system", "user"]
    assert data["expected"] == "The right answer to capital-france."
    assert data["evaluators"][0]["misses"] == ["does not mention Paris"]
    assert data["trace"]["events"][0]["name"] == "search_web"
    assert '"q": "capital of France"' in data["trace"]["events"][0]["arguments"]
    assert "+print('hello')" in data["files"]
    other = data["others"][0]
    assert other["target"] == "alpha" and "-Paris is the capital." in other["diff"]
    assert "+The capital is Lyon." in other["diff"] and other["diff"][0].startswith("--- ")


def test_rubric_items_and_nested_members_and_control_characters():
    results = [{"name": "r", "type": "llm_judge", "score": 0.5, "verdict": "fail",
                "hits": ["[r1] names Paris - Score: 9/10"],
                "misses": ["[r2] cites a source - Score: 2/10 \x1b[31m"],
                "details": {"raw_scores": {"r1": 9, "r2": 2}},
                "evaluator_results": [{"name": "inner", "type": "contains", "score": 1.0}]}]
    out = evaluators(results)
    assert [e["name"] for e in out] == ["r", "r / inner"]
    assert [(i["id"], i["ok"], i["score"]) for i in out[0]["rubric"]] == [("r1", True, 9),
                                                                          ("r2", False, 2)]
    assert "\\x1b[31m" in out[0]["misses"][0] and "\x1b" not in out[0]["misses"][0]
