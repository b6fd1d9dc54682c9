"""A run's Prefect state tells the truth, read back through the Prefect API: every case
passes → Completed (green); quality failures only → "Completed with failures"; a case that
errored (its target gave no answer) → Failed, exit 1; a failed quality gate → Failed, exit 1.
``--no-fail-on-error`` lets a run with errors complete."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.flows.artifacts.test_gates_ui import flow_run_id, read_run

pytestmark = pytest.mark.slow  # the real agentv eval against the session's Prefect server


def _suite(tmp_path: Path, response: str, error: str = "") -> Path:
    (tmp_path / "targets.yaml").write_text(
        "targets:\n  - name: t\n    provider: mock\n"
        f"    response: {response}\n" + (f"    error: {error}\n" if error else ""))
    suite = tmp_path / "s.yaml"
    suite.write_text("$schema: agentv-eval-v2\ntarget: t\nevalcases:\n"
                     + "".join(f"  - id: c{i}\n    input: q{i}\n    execution:\n"
                               "      evaluators:\n        - name: says-yes\n"
                               "          type: contains\n          value: yes\n"
                               for i in range(3)))
    return suite


def _state(cli, suite: Path, *flags: str):
    proc = cli("eval", str(suite), "--targets", str(suite.parent / "targets.yaml"),
               "--out", str(suite.parent / "r.jsonl"), *flags)
    run, _ = read_run(flow_run_id(proc.stdout))
    return proc, run.state


def test_all_pass_is_completed(cli, tmp_path):
    proc, state = _state(cli, _suite(tmp_path, "yes"))
    assert proc.returncode == 0, proc.stderr
    assert state.is_completed() and state.name == "Completed"


def test_quality_failures_only_are_completed_with_failures(cli, tmp_path):
    proc, state = _state(cli, _suite(tmp_path, "no"))
    assert proc.returncode == 0, proc.stderr
    assert state.is_completed() and state.name == "Completed with failures"


def test_execution_errors_fail_the_run(cli, tmp_path):
    proc, state = _state(cli, _suite(tmp_path, "yes", error="the model is down"))
    assert proc.returncode == 1, proc.stderr
    assert state.is_failed() and "execution errors: 3 of 3 case(s) errored" in state.message
    assert "execution errors: 3 of 3" in proc.stdout


def test_no_fail_on_error_lets_a_run_with_errors_complete(cli, tmp_path):
    proc, state = _state(cli, _suite(tmp_path, "yes", error="down"), "--no-fail-on-error")
    assert proc.returncode == 0, proc.stderr
    assert state.is_completed() and state.name == "Completed with failures"


def test_a_failed_gate_fails_the_run(cli, tmp_path):
    proc, state = _state(cli, _suite(tmp_path, "no"), "--fail-under", "0.5")
    assert proc.returncode == 1, proc.stderr
    assert state.is_failed() and "fail-under" in state.message
