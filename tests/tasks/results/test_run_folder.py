"""--output's run folder fed record by record (the real AgentV's is compared in
tests/compat/test_agentv4_run_folder.py): paths in each row, a test's files, the run's sums,
secrets scrubbed."""
from __future__ import annotations

import json

from agentv.providers import secrets
from agentv.tasks.results.run_folder import RunFolder


def record(test_id: str, score: float, answer: str = "4", **extra) -> dict:
    return {"timestamp": "2026-01-01T00:00:00.000Z", "test_id": test_id, "suite": "s/x",
            "target": "t", "score": score, "candidate_answer": answer, "duration_ms": 1500,
            "token_usage": {"input": 3, "output": 4},
            "lm_provider_request": {"question": "2+2?"},
            "execution_status": "ok" if score >= 0.8 else "quality_failure",
            "scores": [{"name": "c", "type": "contains", "score": score, "weight": 1.0,
                        "verdict": "pass" if score >= 0.8 else "fail",
                        "assertions": [{"text": "has 4", "passed": score >= 0.8}]}], **extra}


def test_rows_link_their_folders_and_the_run_is_summed(tmp_path):
    folder = RunFolder(tmp_path)
    folder.plan([str(tmp_path / "a.eval.yaml")], 3)
    row = folder.linked(record("a:1", 1.0))
    assert row["artifact_dir"] == "s_x/a_1" and row["answer_path"] == "s_x/a_1/outputs/answer.md"
    for r in (record("a:1", 1.0), record("b", 0.0),
              record("c", 0.0, "", error="boom", execution_status="execution_error",
                     scores=None)):
        folder.add(r)
    folder.finish()
    grading = json.loads((tmp_path / "s_x/b/grading.json").read_text())
    assert grading["summary"] == {"passed": 0, "failed": 1, "total": 1, "pass_rate": 0}
    assert (tmp_path / "s_x/a_1/input.md").read_text() == "@[user]:\n2+2?"
    assert (tmp_path / "s_x/c/outputs/answer.md").read_text() == "Error occurred: boom"
    bench = json.loads((tmp_path / "benchmark.json").read_text())
    assert bench["metadata"]["tests_run"] == ["a:1", "b", "c"]
    assert bench["metadata"]["planned_test_count"] == 3
    assert bench["run_summary"]["t"]["pass_rate"] == {"mean": 0.5, "stddev": 0.5}
    assert bench["per_grader_summary"] == {"c:contains": {"mean": 0.5, "stddev": 0.5}}
    assert bench["notes"] == ["1 test(s) had execution errors and are excluded from quality "
                              "pass_rate"]
    timing = json.loads((tmp_path / "timing.json").read_text())
    assert timing == {"total_tokens": 21, "duration_ms": 4500, "total_duration_seconds": 4.5,
                      "token_usage": {"input": 9, "output": 12, "reasoning": 0}}


def test_secrets_never_reach_the_folder(tmp_path):
    with secrets.scope() as registry:
        registry.add(["sk-live-very-secret-value"])
        folder = RunFolder(tmp_path)
        folder.add(record("a", 1.0, "key sk-live-very-secret-value"))
        folder.finish()
    text = "".join(p.read_text() for p in tmp_path.rglob("*") if p.is_file())
    assert "sk-live-very-secret-value" not in text
