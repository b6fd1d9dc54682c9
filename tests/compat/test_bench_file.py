"""The peer benchmark's AgentV eval file (shared/bench/gen_cases.py writes the exact file the
benchmark gives AgentV 4.42.4) runs on agentv unchanged, with the benchmark's own targets file,
against a loopback OpenAI-compatible server, on the benchmark's own command line for AgentV
(``eval run ... --output DIR --no-cache``): every test passes and its row in DIR/index.jsonl
has AgentV's keys."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import SHARED, run_cli

pytestmark = pytest.mark.slow  # end-to-end (docs/development.md: the fast subset)

GEN = SHARED / "bench" / "gen_cases.py"
AGENTV4_KEYS = {"timestamp", "test_id", "suite", "category", "score", "target", "token_usage",
                "duration_ms", "scores", "execution_status"}
RUN_FOLDER = {"artifact_dir", "grading_path", "timing_path", "input_path", "output_path",
              "answer_path", "response_path", "transcript_path", "task_dir", "eval_path",
              "targets_path", "projection_identity", "export_metadata"}


@pytest.mark.skipif(not GEN.is_file(), reason="shared/bench absent")
def test_the_benchmarks_agentv_file_runs_unchanged(prefect_api, wire_stub, tmp_path):
    subprocess.run([sys.executable, str(GEN), "--n", "12", "--out", str(tmp_path / "cases"),
                    "--base-url", f"{wire_stub.base_url}/v1"], check=True, capture_output=True)
    # the benchmark's command line for AgentV (shared/bench/peers.py), word for word
    proc = run_cli("eval", "run", "cases/agentv/EVAL.yaml", "--targets",
                   "cases/agentv/targets.yaml", "--target", "stub", "--workers", "4",
                   "--output", "out", "--no-cache", cwd=tmp_path,
                   env={"OPENAI_API_KEY": "sk-stub-key", "AGENTV_STUB_MODEL": "stub-model"},
                   timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    records = [json.loads(line) for line in (tmp_path / "out" / "index.jsonl").read_text()
               .splitlines()]
    assert len(records) == 12
    assert all(r["execution_status"] == "ok" and r["score"] == 1 for r in records)
    assert {frozenset(r) for r in records} == {frozenset(AGENTV4_KEYS | RUN_FOLDER)}
    for record in records:  # the benchmark counts a pass as it does for AgentV
        assert all(s["verdict"] == "pass" for s in record["scores"])
        assert (tmp_path / "out" / record["grading_path"]).is_file()
