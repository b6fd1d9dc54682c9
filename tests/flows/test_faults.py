"""Fault injection: 429s with Retry-After, 500s and dropped connections lose no case."""
from __future__ import annotations

import json

import pytest

from tests.stub_llm import start_stub

pytestmark = pytest.mark.slow  # end-to-end (docs/development.md: the fast subset)


def test_fault_storm_records_every_case_once_and_scored(cli, tmp_path):
    base_url, stub = start_stub(latency_ms=20, fail_429=0.10, fail_500=0.05, fail_drop=0.02,
                                retry_after=0.3, seed=11)
    try:
        (tmp_path / "targets.yaml").write_text(
            "$schema: agentv-targets-v2\ntargets:\n  - name: stub\n    provider: openai\n"
            f"    model: stub-model\n    base_url: {base_url}\n    api_key: sk-fault-test-key\n"
            "    max_retries: 6\n    retry_initial_delay_ms: 50\n    retry_max_delay_ms: 2000\n"
            "    timeout_seconds: 10\n")
        n = 150
        cases = "".join(f"  - id: c{i:03d}\n    input: 'What is {i} + {i}?'\n    evaluators:\n"
                        f"      - {{type: contains, value: '{2 * i}'}}\n" for i in range(n))
        (tmp_path / "e.yaml").write_text(
            "$schema: agentv-eval-v2\ntarget: stub\nevalcases:\n" + cases)
        out = tmp_path / "r.jsonl"
        proc = cli("eval", str(tmp_path / "e.yaml"), "--workers", "32", "--out", str(out))
        assert proc.returncode == 0, proc.stderr
        recs = [json.loads(l) for l in out.read_text().splitlines()]
        assert len(recs) == n and len({r["eval_id"] for r in recs}) == n
        assert all(r["error"] is None and r["score"] == 1.0 for r in recs), \
            [r["error"] for r in recs if r["error"]][:3]
        faulted = sum(1 for r in stub.completions() if r.status != 200)
        retries = sum(r["attempt"] - 1 for r in recs)  # a case may be faulted twice
        assert faulted > 10 and retries == faulted  # each fault retried once, no other retry
        assert stub.violations == []  # no retry came sooner than its Retry-After
        assert "sk-fault-test-key" not in out.read_text()
    finally:
        stub.stop()
