"""The suite's file boundary (tasks/load/boundary.py): what a suite may read, run or copy
resolves inside its root — the git repository, else the project folder agentv runs in —
unless the user widens it with ``--allow-path`` or ``allowed_paths``; outside is one error
line naming file:line, field and both ways to allow it, in ``validate`` and ``eval`` alike."""
from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from agentv.providers.errors import ConfigError
from agentv.tasks.load.boundary import Boundary, suite_root
from agentv.tasks.load.files import load_suite
from agentv.tasks.plan.options import EvalOptions
from agentv.tasks.plan.plan import build_plan
from agentv.tasks.plan.validate import validate_paths

SECRET = "TOP-SECRET-7f3a"


@pytest.fixture
def layout(tmp_path, monkeypatch):
    """``proj/`` (a git repository) with ``evals/s.yaml``; ``outside/secret.md`` beside it."""
    monkeypatch.setenv("AGENTV_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / "evals").mkdir()
    (proj / "docs").mkdir()
    (proj / "docs" / "ok.md").write_text("inside\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(SECRET + "\n")
    return proj, outside


def write_suite(proj: Path, content: str) -> Path:
    path = proj / "evals" / "s.yaml"
    path.write_text("$schema: agentv-eval-v2\nevalcases:\n  - id: c1\n    expected_outcome: x\n"
                    "    input_messages:\n      - role: user\n        content:\n"
                    + textwrap.indent(textwrap.dedent(content), " " * 10))
    return path


def file_block(value: str) -> str:
    return f"- type: file\n  value: {value}\n"


def test_the_root_is_the_git_repository(layout):
    proj, _ = layout
    assert suite_root(proj / "evals" / "s.yaml") == proj.resolve()


def test_without_git_the_root_is_the_project_folder_agentv_runs_in(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTV_HOME", str(tmp_path / "home"))
    suite = tmp_path / "proj" / "features" / "a" / "evals"
    suite.mkdir(parents=True)
    (tmp_path / "proj" / "features" / "a" / ".agentv").mkdir()
    monkeypatch.chdir(tmp_path / "proj")
    assert suite_root(suite / "s.yaml") == (tmp_path / "proj").resolve()
    monkeypatch.chdir(tmp_path)  # run from elsewhere: the nearest folder with .agentv/
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert suite_root(suite / "s.yaml") == (tmp_path / "proj" / "features" / "a").resolve()
    (tmp_path / "proj" / "features" / "a" / ".agentv").rmdir()  # else the eval file's folder
    assert suite_root(suite / "s.yaml") == suite.resolve()


def test_the_home_folder_is_never_the_root(tmp_path, monkeypatch):
    """Run from the home folder, a downloaded suite is bounded by its own folder; agentv's
    own ``~/.agentv/`` does not make the home folder a project."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("AGENTV_HOME", raising=False)
    (tmp_path / ".agentv").mkdir()
    suite = tmp_path / "Downloads" / "evil"
    suite.mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    assert suite_root(suite / "s.yaml") == suite.resolve()


@pytest.mark.parametrize("value", ["../../outside/secret.md", "{outside}/secret.md",
                                   "./link.md", "../docs/dirlink/secret.md"])
def test_a_file_outside_is_an_error_before_it_is_read(layout, value):
    proj, outside = layout
    (proj / "evals" / "link.md").symlink_to(outside / "secret.md")
    (proj / "docs" / "dirlink").symlink_to(outside, target_is_directory=True)
    shown = value.format(outside=outside)
    path = write_suite(proj, file_block(shown))
    report = validate_paths([str(path)])
    assert report.errors == [
        f"{path}:8: value: path '{shown}' is outside the suite's root {proj.resolve()} "
        "(allow it with --allow-path DIR or allowed_paths in .agentv/config.yaml)"]
    assert SECRET not in "".join(report.errors + report.warnings)


def test_files_inside_the_root_load_symlinks_included(layout):
    proj, _ = layout
    (proj / "evals" / "link.md").symlink_to(proj / "docs" / "ok.md")
    path = write_suite(proj, file_block("../docs/ok.md") + file_block("./link.md")
                       + file_block("/docs/ok.md"))
    case = load_suite(path).cases[0]
    assert [s.text for s in case.input_messages[0].segments] == ["inside\n"] * 3


def test_allow_path_widens_the_boundary(layout):
    proj, outside = layout
    path = write_suite(proj, file_block("../../outside/secret.md"))
    with pytest.raises(ConfigError, match="outside the suite's root"):
        build_plan(EvalOptions(paths=[str(path)], dry_run=True))
    assert validate_paths([str(path)], allow_path=[str(outside)]).errors == []
    plan = build_plan(EvalOptions(paths=[str(path)], dry_run=True, allow_path=[str(outside)]))
    segment = plan.suites[0].cases[0].input_messages[0].segments[0]
    assert segment.text == SECRET + "\n"
    assert plan.suites[0].boundary == Boundary(proj.resolve(), (outside.resolve(),))


def test_allowed_paths_in_the_project_config_widen_it(layout, monkeypatch):
    proj, outside = layout
    path = write_suite(proj, file_block("../../outside/secret.md"))
    (proj / ".agentv").mkdir()
    config = proj / ".agentv" / "config.yaml"
    config.write_text("$schema: agentv-config-v2\nallowed_paths:\n  - ../outside\n")
    monkeypatch.chdir(tmp := proj / "evals")  # the project's config: found from the cwd up
    assert tmp.is_dir() and validate_paths([str(path)]).errors == []
    config.write_text("$schema: agentv-config-v2\nallowed_paths:\n  - ../docs\n")
    assert "outside the suite's root" in validate_paths([str(path)]).errors[0]


def test_a_missing_allow_path_is_a_flag_error(layout):
    proj, _ = layout
    with pytest.raises(ConfigError, match="^--allow-path: no such file or folder: /nope$"):
        EvalOptions(paths=[str(proj)], allow_path=["/nope"])


JUDGES = {
    "prompt": "- type: llm_judge\n  promptPath: /etc/passwd\n",
    "script": "- type: code_judge\n  script: python3 ../../outside/judge.py\n",
    "cwd": "- type: code_judge\n  script: cat secret.md\n  cwd: ../../outside\n",
    "schema": "- type: is_json\n  schema: ../../outside/schema.json\n",
    "aggregator.path": "- type: composite\n  evaluators: [{type: contains, value: x}]\n"
                       "  aggregator: {type: code_judge, path: ../../outside/agg.py}\n",
    "aggregator.prompt": "- type: composite\n  evaluators: [{type: contains, value: x}]\n"
                         "  aggregator: {type: llm_judge, prompt: ../../outside/agg.md}\n",
}


@pytest.mark.parametrize("field", sorted(JUDGES))
def test_judge_files_outside_are_errors(layout, field):
    proj, outside = layout
    for name in ("judge.py", "schema.json", "agg.py", "agg.md"):
        (outside / name).write_text("{}\n")
    path = proj / "evals" / "s.yaml"
    path.write_text("$schema: agentv-eval-v2\nevaluators:\n" + textwrap.indent(JUDGES[field], "  ")
                    + "evalcases:\n  - id: c1\n    expected_outcome: x\n    input: hi\n")
    errors = validate_paths([str(path)]).errors
    assert len(errors) == 1 and f": {field}: path '" in errors[0], errors
    assert "is outside the suite's root" in errors[0]
    assert validate_paths([str(path)], allow_path=[str(outside), "/etc"]).errors == []


V4 = {
    "input_files": "tests:\n  - id: t\n    criteria: x\n    input: hi\n    input_files:\n"
                   "      - ../../outside/secret.md\n",
    "tests": "tests: ../../outside/tests.yaml\n",
    "command": "tests:\n  - id: t\n    criteria: x\n    input: hi\n    assertions:\n"
               "      - type: code-grader\n        command: [python3, ../../outside/g.py]\n",
    "prompt.command": "tests:\n  - id: t\n    criteria: x\n    input: hi\n    assertions:\n"
                      "      - type: llm-grader\n        prompt:\n"
                      "          command: [python3, ../../outside/p.py]\n",
    "workspace.template": "workspace:\n  template: ../../outside\ntests:\n  - id: t\n"
                          "    criteria: x\n    input: hi\n",
}


@pytest.mark.parametrize("field", sorted(V4))
def test_agentv4_files_outside_are_errors(layout, field):
    proj, outside = layout
    (outside / "tests.yaml").write_text("- id: t\n  criteria: x\n  input: hi\n")
    for name in ("g.py", "p.py"):
        (outside / name).write_text("print('{}')\n")
    path = proj / "evals" / "s.eval.yaml"
    path.write_text(V4[field])
    errors = validate_paths([str(path)]).errors
    assert len(errors) == 1 and f": {field}: path '" in errors[0], errors
    assert validate_paths([str(path)], allow_path=[str(outside)]).errors == []


def test_a_symlink_loop_is_an_error_not_a_hang(layout):
    proj, _ = layout
    loop = proj / "evals" / "loop.md"
    os.symlink(loop, loop)
    path = write_suite(proj, file_block("./loop.md"))
    errors = validate_paths([str(path)]).errors
    assert len(errors) == 1 and ": value: " in errors[0], errors
