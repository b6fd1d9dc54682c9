"""AgentV 4.x files as a run finds and plans them: ``input_files``, folder discovery
(``*.eval.yaml``, ``EVAL.yaml``, ``evals/*.yaml``), each file's nearest ``.agentv/targets.yaml``
and ``execution.workers``."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentv.providers.errors import ConfigError
from agentv.tasks.load.discover import expand_eval_paths
from agentv.tasks.load.files import load_suite
from agentv.tasks.plan.plan import EvalOptions, build_plan
from tests.tasks.load.agentv4.test_suite import write

TEST = "tests:\n  - id: {id}\n    input: hi\n    assertions:\n      - type: contains\n" \
       "        value: hi\n"


def test_input_files_come_before_the_text_and_the_suites_are_the_default(tmp_path):
    write(tmp_path / "notes.md", "# notes\n")
    write(tmp_path / "data.txt", "1,2\n")
    suite = load_suite(write(tmp_path / "files.eval.yaml", """\
input_files: [notes.md]
tests:
  - id: own
    input: Summarize
    input_files: [data.txt, notes.md]
    criteria: summarizes
  - id: suites
    input: Summarize
    criteria: summarizes
  - id: skipped
    input: Summarize
    criteria: summarizes
    execution: {skip_defaults: true}
"""))
    own, suites, skipped = suite.cases
    blocks = [(s.kind, s.display or s.text) for s in own.input_messages[0].segments]
    assert blocks == [("file", "data.txt"), ("file", "notes.md"), ("text", "Summarize")]
    assert own.input_messages[0].segments[0].path == str(tmp_path / "data.txt")
    assert [(s.kind, s.display or s.text) for s in suites.input_messages[0].segments] == [
        ("file", "notes.md"), ("text", "Summarize")]
    assert [s.kind for s in skipped.input_messages[0].segments] == ["text"]


def test_a_missing_input_file_names_its_line(tmp_path):
    path = write(tmp_path / "missing.eval.yaml", "tests:\n  - id: a\n    input: hi\n"
                 "    input_files: [nowhere.txt]\n    criteria: b\n")
    with pytest.raises(ConfigError) as err:
        load_suite(path)
    assert "nowhere.txt" in err.value.render()


def test_folder_discovery_picks_agentv4_eval_files(tmp_path):
    for name in ("a.eval.yaml", "sub/EVAL.yaml", "sub/evals/plain.yaml", "sub/eval.yml"):
        write(tmp_path / name, TEST.format(id="t"))
    write(tmp_path / "notes.yaml", TEST.format(id="t"))  # tests:, but not an eval file's name
    write(tmp_path / "sub/evals/cases.yaml", "- id: x\n  input: a\n  criteria: b\n")
    write(tmp_path / "runs/index.jsonl", '{"test_id": "t", "suite": "s", "score": 1}\n')
    write(tmp_path / "fixtures/raw.jsonl", '{"schema_version": "x", "test_id": "t"}\n')
    write(tmp_path / ".agentv/targets.yaml", "targets:\n  - {name: default, provider: mock}\n")
    found = [str(p.relative_to(tmp_path)) for p in expand_eval_paths([str(tmp_path)])]
    assert found == ["a.eval.yaml", "sub/EVAL.yaml", "sub/eval.yml", "sub/evals/plain.yaml"]


def _suite_folder(root: Path, name: str, answer: str) -> Path:
    write(root / name / ".agentv/targets.yaml",
          f"targets:\n  - name: default\n    provider: mock\n    response: {answer}\n")
    return write(root / name / "evals" / f"{name}.eval.yaml", TEST.format(id=name))


def test_each_file_runs_on_its_nearest_agentv_targets(tmp_path, monkeypatch):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.chdir(tmp_path)
    one, two = _suite_folder(tmp_path, "one", "first"), _suite_folder(tmp_path, "two", "second")
    plan = build_plan(EvalOptions(paths=[str(tmp_path)]))
    answers = {job.case.id: plan.targets[job.target].settings["response"] for job in plan.jobs}
    assert answers == {"one": "first", "two": "second"}
    wheres = {job.case.id: plan.targets[job.target].where for job in plan.jobs}
    assert str(one.parent.parent / ".agentv/targets.yaml") in wheres["one"]
    assert str(two.parent.parent / ".agentv/targets.yaml") in wheres["two"]


def test_execution_workers_is_the_files_cap_unless_workers_is_given(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "targets.yaml", "targets:\n  - {name: default, provider: mock}\n")
    four = write(tmp_path / "four.eval.yaml", "execution: {workers: 4}\n" + TEST.format(id="a"))
    plain = write(tmp_path / "plain.eval.yaml", TEST.format(id="b"))
    plan = build_plan(EvalOptions(paths=[str(four), str(plain)]))
    assert plan.file_caps() == {str(four): 4, str(plain): 1} and plan.workers == 5
    given = build_plan(EvalOptions(paths=[str(four), str(plain)], workers=2))
    assert given.file_caps() == {str(four): 1, str(plain): 1} and given.workers == 2
    write(tmp_path / "bad.eval.yaml", "execution: {workers: 0}\n" + TEST.format(id="c"))
    with pytest.raises(ConfigError) as err:
        load_suite(tmp_path / "bad.eval.yaml")
    assert "bad.eval.yaml:1: workers: must be a whole number from 1 to 50" in err.value.render()
