"""AgentV's own v2.6.1 suites run unchanged with --dry-run (copied to a temp dir at test
time): exotic providers of unused targets only warn, file references resolve like AgentV's,
and every record carries the baseline's keys."""
from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import SHARED

FEATURES = SHARED / "agentv-examples" / "v2.6.1" / "examples" / "features"
pytestmark = pytest.mark.skipif(not FEATURES.is_dir(), reason="shared/agentv-examples absent")


@pytest.mark.parametrize("suite,baseline", [
    ("basic/evals/dataset.yaml", "basic/evals/dataset.baseline.jsonl"),
    ("basic-jsonl/evals/dataset.jsonl", "basic/evals/dataset.baseline.jsonl"),
])
def test_agentv_suite_runs_unchanged_in_dry_run(cli, tmp_path, suite, baseline):
    root = tmp_path / "features"
    shutil.copytree(FEATURES, root)
    (root / ".git").mkdir()  # the copy is its own repository root
    out = tmp_path / "r.jsonl"
    proc = cli("eval", str(root / suite), "--dry-run", "--out", str(out), "--workers", "4",
               cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "unknown provider 'pi-coding-agent'" in proc.stderr  # unused target: a warning
    records = [json.loads(l) for l in out.read_text().splitlines()]
    from tasks.files import load_suite
    assert sorted(r["eval_id"] for r in records) == sorted(c.id for c in
                                                          load_suite(root / suite).cases)
    baseline_keys = set(json.loads((root / baseline).read_text().splitlines()[0]))
    shared_keys = baseline_keys - {"evaluator_provider_request", "trace_summary"}
    assert all(shared_keys <= set(r) for r in records), shared_keys - set(records[0])
    guided = [r for r in records if r["eval_id"] == "code-review-javascript"][0]
    assert "SUPERSECRET_INSTRUCTION_MARKER_JAVASCRIPT" in guided["lm_provider_request"]["guidelines"]
