"""A test's trace, transcript and task bundle in the run folder
(tasks/results/run_folder_files.py): the row links them, ``add`` writes them from the
engine's ``run_trace``; a record read back (``--resume``) leaves the files it finds."""
from __future__ import annotations

import json

from agentv.tasks.results.agentv4_rows import written
from agentv.tasks.results.run_folder import RunFolder
from agentv.tasks.results.run_folder_files import traced

SUITE = "name: s\ntests:\n  - id: t1\n    input: 2+2?\n    assertions:\n" \
        "      - type: contains\n        value: '4'\n"


def record(tmp_path, **extra) -> dict:
    return {"timestamp": "2026-01-01T00:00:00.000Z", "test_id": "t1", "suite": "s",
            "target": "agent", "score": 1.0, "candidate_answer": "4", "duration_ms": 10,
            "execution_status": "ok", "record_format": "agentv-4",
            "run_trace": {"file": str(tmp_path / "s.eval.yaml"), "provider": "cli",
                          "inputs": [{"role": "user", "content": "2+2?"}],
                          "outputs": [{"role": "assistant", "content": "4"}]}, **extra}


def folder(tmp_path) -> RunFolder:
    (tmp_path / "s.eval.yaml").write_text(SUITE)
    (tmp_path / "targets.yaml").write_text("targets:\n  - name: agent\n    provider: mock\n")
    out = RunFolder(tmp_path / "run")
    out.plan([str(tmp_path / "s.eval.yaml")], 1, {"agent": str(tmp_path / "targets.yaml")})
    return out


def test_the_row_links_the_files_add_writes(tmp_path):
    out = folder(tmp_path)
    row = out.linked(record(tmp_path))
    assert row["transcript_path"] == "s/t1/outputs/transcript.jsonl"
    assert (row["task_dir"], row["eval_path"], row["targets_path"]) == \
        ("s/t1/task", "s/t1/task/EVAL.yaml", "s/t1/task/targets.yaml")
    assert row["projection_identity"]["dimensions"]["run_id"] == "run"
    assert row["export_metadata"] == {"duplicate_policy": "update"}
    out.add(record(tmp_path))
    test = tmp_path / "run" / "s" / "t1"
    trace = json.loads((test / "outputs" / "trace.json").read_text())
    assert trace["projection_identity"] == row["projection_identity"]
    assert trace["source"]["metadata"] == {"provider": "cli", "target": "agent",
                                           "eval_case_id": "t1"}
    assert [s["name"] for s in trace["trace"]["spans"]] == ["invoke_agent agent", "chat agent"]
    lines = (test / "outputs" / "transcript.jsonl").read_text().splitlines()
    assert [json.loads(line)["content"] for line in lines] == ["2+2?", "4"]
    assert "name: contains-4" in (test / "task" / "EVAL.yaml").read_text()
    assert (test / "task" / "targets.yaml").read_text() == \
        "targets:\n  - name: agent\n    provider: mock\n"
    kept = written(row)
    assert "run_trace" not in kept and kept["transcript_path"] == row["transcript_path"]


def test_a_record_read_back_leaves_the_files(tmp_path):
    out = folder(tmp_path)
    out.add(record(tmp_path))
    trace = tmp_path / "run" / "s" / "t1" / "outputs" / "trace.json"
    before = trace.read_text()
    again = {k: v for k, v in record(tmp_path).items() if k != "run_trace"}
    out.add({**again, "candidate_answer": None})
    assert trace.read_text() == before


def test_a_record_without_run_trace_traces_its_request_and_answer():
    seen = traced({"eval_id": "e", "dataset": "d", "candidate_answer": "a",
                   "lm_provider_request": {"question": "q"}})
    assert seen["record"]["test_id"] == "e" and seen["record"]["suite"] == "d"
    assert seen["messages"] == [{"role": "user", "content": "q"},
                                {"role": "assistant", "content": "a"}]
