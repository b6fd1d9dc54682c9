"""The peer benchmark's AgentV eval file (shared/bench/gen_cases.py writes the exact file the
benchmark gives AgentV 4.42.4) runs on agentv unchanged, with the benchmark's own targets file,
against a loopback OpenAI-compatible server: every test passes and its record has AgentV's
keys."""
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


@pytest.mark.skipif(not GEN.is_file(), reason="shared/bench absent")
def test_the_benchmarks_agentv_file_runs_unchanged(prefect_api, wire_stub, tmp_path):
    subprocess.run([sys.executable, str(GEN), "--n", "12", "--out", str(tmp_path / "cases"),
                    "--base-url", f"{wire_stub.base_url}/v1"], check=True, capture_output=True)
    out = tmp_path / "results.jsonl"
    proc = run_cli("eval", "cases/agentv/EVAL.yaml", "--targets", "cases/agentv/targets.yaml",
                   "--target", "stub", "--workers", "4", "--out", str(out), cwd=tmp_path,
                   env={"OPENAI_API_KEY": "sk-stub-key", "AGENTV_STUB_MODEL": "stub-model"},
                   timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 12
    assert all(r["execution_status"] == "ok" and r["score"] == 1 for r in records)
    assert {frozenset(r) for r in records} == {frozenset(AGENTV4_KEYS)}
