"""``--grader-target NAME`` (AgentV 4.x's flag; alias ``--judge-target``): one target judges
every target's LLM-graded evaluators; a name no targets file defines is a configuration
error before anything runs."""
from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.slow  # the real agentv eval against the session's Prefect server

TARGETS = """$schema: agentv-targets-v2
targets:
  - name: agent
    provider: mock
    response: Paris
  - name: judge2
    provider: mock
    judge_response: '{"score": 0.25, "hits": [], "misses": ["x"], "reasoning": "from judge2"}'
"""
SUITE = """$schema: agentv-eval-v2
target: agent
evalcases:
  - id: a
    input: capital of France?
    expected_outcome: Paris
    execution:
      evaluators:
        - name: j
          type: llm_judge
"""


def test_grader_target_judges_every_target(cli, tmp_path):
    (tmp_path / "targets.yaml").write_text(TARGETS)
    (tmp_path / "s.yaml").write_text(SUITE)
    out = tmp_path / "r.jsonl"
    proc = cli("eval", str(tmp_path / "s.yaml"), "--targets", str(tmp_path / "targets.yaml"),
               "--grader-target", "judge2", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    record = json.loads(out.read_text().splitlines()[0])
    assert record["evaluator_results"][0]["reasoning"] == "from judge2"
    bad = cli("eval", str(tmp_path / "s.yaml"), "--targets", str(tmp_path / "targets.yaml"),
              "--judge-target", "nobody", "--out", str(tmp_path / "r2.jsonl"))
    assert bad.returncode == 2 and "unknown target 'nobody'" in bad.stderr
    assert not (tmp_path / "r2.jsonl").exists()
