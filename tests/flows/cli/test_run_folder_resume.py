"""``--output DIR`` with AgentV 4.x's ways to continue a run: ``--resume`` and
``--rerun-failed`` continue DIR/index.jsonl (each test keeps one row, its folder, and the
run's benchmark.json counts every row), ``--retry-errors FILE`` fills a new folder."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

pytestmark = pytest.mark.slow  # end-to-end (docs/development.md: the fast subset)

SUITE = """description: resumable
execution:
  target: canned
tests:
  - id: one
    input: say ok
    assertions: [{type: contains, value: ok}]
  - id: two
    input: say ok again
    assertions: [{type: contains, value: ok}]
  - id: three
    input: say no
    assertions: [{type: contains, value: never}]
"""


def _suite(tmp: Path) -> None:
    (tmp / "evals").mkdir()
    (tmp / "evals" / "s.eval.yaml").write_text(SUITE)
    (tmp / "targets.yaml").write_text(
        "targets:\n  - name: canned\n    provider: mock\n    response: ok\n")


def _eval(tmp: Path, *args: str):
    return run_cli("eval", "evals/s.eval.yaml", "--targets", "targets.yaml", *args, cwd=tmp,
                   timeout=300)


def _rows(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "index.jsonl").read_text().splitlines()]


def test_resume_continues_the_output_folder(prefect_api, tmp_path):
    _suite(tmp_path)
    proc = _eval(tmp_path, "--output", "run")
    assert proc.returncode == 0, proc.stderr[-2000:]
    index = tmp_path / "run" / "index.jsonl"
    kept = index.read_text().splitlines()
    first = {json.loads(line)["test_id"]: line for line in kept}
    # the run was cut short: only test "one" was recorded
    index.write_text(first["one"] + "\n")
    proc = _eval(tmp_path, "--output", "run", "--resume")  # as AgentV: no value
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "resuming" in proc.stderr and "1 case(s) already recorded" in proc.stderr
    rows = _rows(tmp_path / "run")
    assert sorted(r["test_id"] for r in rows) == ["one", "three", "two"]
    assert index.read_text().splitlines()[0] == first["one"]  # kept as it was
    for row in rows:
        assert (tmp_path / "run" / row["grading_path"]).is_file()
    bench = json.loads((tmp_path / "run" / "benchmark.json").read_text())
    assert sorted(bench["metadata"]["tests_run"]) == ["one", "three", "two"]
    assert bench["run_summary"]["canned"]["pass_rate"]["mean"] == pytest.approx(2 / 3, 1e-3)


def test_rerun_failed_runs_the_folders_failures_again(prefect_api, tmp_path):
    _suite(tmp_path)
    assert _eval(tmp_path, "--output", "run").returncode == 0
    before = {r["test_id"]: r["timestamp"] for r in _rows(tmp_path / "run")}
    proc = _eval(tmp_path, "-o", "run", "--rerun-failed")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "re-running the failures of" in proc.stderr and "1 to run again" in proc.stderr
    after = {r["test_id"]: r["timestamp"] for r in _rows(tmp_path / "run")}
    assert sorted(after) == ["one", "three", "two"]
    assert after["one"] == before["one"] and after["two"] == before["two"]
    assert after["three"] >= before["three"]
    assert len(_rows(tmp_path / "run")) == 3


def test_retry_errors_fills_a_new_folder(prefect_api, tmp_path):
    _suite(tmp_path)
    assert _eval(tmp_path, "--output", "first").returncode == 0
    proc = _eval(tmp_path, "--output", "second", "--retry-errors", "first/index.jsonl")
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = _rows(tmp_path / "second")
    assert sorted(r["test_id"] for r in rows) == ["one", "three", "two"]
    assert all((tmp_path / "second" / r["grading_path"]).is_file() for r in rows)


def test_a_folder_continues_only_its_own_results(tmp_path):
    _suite(tmp_path)
    proc = _eval(tmp_path, "--output", "run", "--resume", "other.jsonl", "--dry-run")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and "--output" in proc.stderr
    assert "Traceback" not in proc.stderr
