"""``agentv init [DIR]``: the starter suite, targets file, agent script and .env.template run
as they are — on the mock, and on the cli target running the starter's script."""
from __future__ import annotations

import json

import pytest

from agentv.flows.cli.init import FILES
from tests.conftest import run_cli


def records(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.slow
def test_init_writes_a_starter_that_runs_as_it_is(cli, tmp_path):
    root = tmp_path / "my-evals"
    proc = cli("init", str(root))
    assert proc.returncode == 0, proc.stderr
    assert sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()) == sorted(
        FILES)
    assert f"next: agentv eval {root / 'evals'}" in proc.stdout
    for target, answer in (("default", "The capital of France is Paris."),
                           ("my_agent", "Paris is the capital of France.")):
        out = tmp_path / f"{target}.jsonl"
        proc = cli("eval", str(root / "evals"), "--target", target, "--out", str(out),
                   "--fail-under", "1")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        (record,) = records(out)
        assert record["candidate_answer"].strip() == answer and record["score"] == 1.0
        assert [e["name"] for e in record["evaluator_results"]] == ["names-paris", "judge-says"]
        assert "pass rate: 100.0%" in proc.stdout


def test_the_starter_validates_strictly_without_keys(tmp_path):
    assert run_cli("init", str(tmp_path)).returncode == 0
    proc = run_cli("validate", "--strict", str(tmp_path / "evals"),
                   str(tmp_path / ".agentv" / "targets.yaml"), env={"OPENAI_API_KEY": ""})
    assert proc.returncode == 0, proc.stderr
    assert "2 file(s) valid, 0 invalid, 0 warning(s)" in proc.stdout
    template = (tmp_path / ".env.template").read_text()
    assert "OPENAI_API_KEY=\n" in template and "never commit" in template


def test_init_keeps_existing_files_unless_forced(tmp_path):
    suite = tmp_path / "evals" / "starter.test.yaml"
    suite.parent.mkdir()
    suite.write_text("mine\n")
    proc = run_cli("init", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert f"kept (exists; --force overwrites): {suite}" in proc.stdout
    assert suite.read_text() == "mine\n" and (tmp_path / ".env.template").is_file()
    assert run_cli("init", str(tmp_path), "--force").returncode == 0
    assert suite.read_text() == FILES["evals/starter.test.yaml"]


def test_init_into_a_file_is_one_error_line(tmp_path):
    blocker = tmp_path / "taken"
    blocker.write_text("")
    proc = run_cli("init", str(blocker))
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"error: {blocker}:") and len(proc.stderr.splitlines()) == 1
    assert "Traceback" not in proc.stderr
