"""Consent made visible at validate time: a boundary widened by the suite's own config, an
inline script and a template symlink leaving it are each a warning of ``agentv validate``
(and ``eval``), an error with ``--strict``; a plain suite has none."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from agentv.tasks.plan.consent import inline_code
from agentv.tasks.plan.validate import validate_paths
from tests.conftest import run_cli

TARGETS = "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: mock\n"


def _suite(root: Path, evaluators: str = "[{type: contains, value: x}]",
           workspace: str = "") -> Path:
    (root / "targets.yaml").write_text(TARGETS)
    path = root / "e.yaml"
    path.write_text("$schema: agentv-eval-v2\n" + workspace + "evalcases:\n"
                    f"  - id: a\n    input: hi\n    evaluators: {evaluators}\n"
                    f"  - id: b\n    input: ho\n    evaluators: {evaluators}\n")
    return path


def _inline(root: Path) -> Path:
    return _suite(root, f"[{{type: code_judge, script: [{sys.executable}, -c, "
                        "'print(1)']}]")


def _widened(root: Path, outside: Path) -> Path:
    (root / ".agentv").mkdir()
    (root / ".agentv" / "config.yaml").write_text(
        f"$schema: agentv-config-v2\nallowed_paths:\n  - {outside}\n")
    return _suite(root)


def _linked(root: Path, outside: Path) -> Path:
    (root / "tpl").mkdir()
    (root / "tpl" / "ok.txt").write_text("x")
    os.symlink(outside / "secret.txt", root / "tpl" / "leak.txt")
    return _suite(root, workspace="workspace:\n  template: tpl\n")


@pytest.fixture
def outside(tmp_path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("s")
    return folder


def _cases(root: Path, outside: Path) -> dict[str, tuple[Path, str]]:
    return {"inline": (_inline(root / "i"), "evaluators[0].script: an inline script"),
            "widened": (_widened(root / "w", outside), "allowed_paths: widens the readable"),
            "linked": (_linked(root / "l", outside), "symlink leak.txt leads outside")}


@pytest.mark.parametrize("kind", ["inline", "widened", "linked"])
def test_each_consent_is_a_validate_warning_said_once(kind, tmp_path, outside, monkeypatch):
    for sub in "iwl":
        (tmp_path / sub).mkdir()
    path, said = _cases(tmp_path, outside)[kind]
    monkeypatch.chdir(path.parent)
    report = validate_paths([str(path)])
    assert report.errors == []
    consent = [w for w in report.warnings if said in w]
    assert len(consent) == 1, report.warnings  # two cases, one suite: said once
    assert consent[0].startswith(str(path.parent)), consent


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["inline", "widened", "linked"])
def test_each_consent_is_an_error_with_strict(kind, tmp_path, outside):
    for sub in "iwl":
        (tmp_path / sub).mkdir()
    path, said = _cases(tmp_path, outside)[kind]
    proc = run_cli("validate", "--strict", str(path), cwd=path.parent)
    assert proc.returncode == 2, proc.stderr
    errors = proc.stderr.strip().splitlines()
    assert len(errors) == 1 and errors[0].startswith("error: ") and said in errors[0], errors
    assert "(an error with --strict)" in errors[0] and "Traceback" not in proc.stderr


def test_a_plain_suite_asks_for_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    report = validate_paths([str(_suite(tmp_path))])
    assert report.errors == [] and report.warnings == []


@pytest.mark.parametrize("command, shown", [
    (["python3", "-c", "print(1)"], "python3 -c"),
    (["python3", "-u", "-c", "print(1)"], "python3 -c"),
    ("sh -c 'cat /etc/passwd'", "sh -c"),
    (["bash", "-xc", "ls"], "bash -xc"),
    (["node", "--eval", "1"], "node --eval"),
    (["perl", "-e", "print 1"], "perl -e"),
    (["awk", "{print}", "f.txt"], "awk PROGRAM"),
    (["python3", "judge.py"], None),
    (["awk", "-f", "prog.awk", "f.txt"], None),
    (["sh", "grade.sh"], None),
    (["bun", "run", "grader.ts"], None),
    (["./grade"], None),
    ([], None),
])
def test_inline_code_is_told_from_a_script_file(command, shown):
    assert inline_code(command) == shown


def test_user_scripts_are_each_named_once_with_their_cases(tmp_path):
    from agentv.tasks.plan.consent import user_scripts
    from agentv.tasks.plan.plan import EvalOptions, build_plan
    (tmp_path / "judge.py").write_text("print('{\"score\": 1}')\n")
    path = _suite(tmp_path, f"[{{type: code_judge, script: [{sys.executable}, judge.py]}}]")
    plan = build_plan(EvalOptions(paths=[str(path)], dry_run=True))
    assert user_scripts(plan.suites) == [f"{sys.executable} judge.py (2 case(s))"]
    assert user_scripts([]) == []


@pytest.mark.slow
def test_a_dry_run_says_which_scripts_of_the_user_it_ran(cli, tmp_path):
    (tmp_path / "judge.py").write_text("print('{\"score\": 1}')\n")
    path = _suite(tmp_path, f"[{{type: code_judge, script: [{sys.executable}, judge.py]}}]")
    proc = cli("eval", str(path), "--dry-run", "--out", str(tmp_path / "r.jsonl"),
               cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (f"dry run: the mock answered and judged; these scripts of yours ran (in the "
            f"sandbox): {sys.executable} judge.py (2 case(s))") in proc.stdout
