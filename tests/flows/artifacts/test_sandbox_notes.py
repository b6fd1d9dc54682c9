"""Consent made visible: a widened or switched-off sandbox is one warning and a summary note;
the run's Prefect tags name the sandbox mode."""
from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest

from agentv.flows.artifacts.sandbox_notes import sandbox_notes
from agentv.flows.prefect.naming import run_tags
from agentv.providers.process import sandbox


class Spec:
    def __init__(self, **settings):
        self.settings = settings

    def setting(self, name):
        return self.settings.get(name)


@pytest.fixture
def suite_tree(tmp_path):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    eval_file = tmp_path / "repo" / "evals" / "s.yaml"
    eval_file.parent.mkdir()
    eval_file.write_text("cases: []\n")
    yield tmp_path, eval_file
    sandbox.configure(True, ())


def plan(eval_file, **targets):
    return SimpleNamespace(suites=[SimpleNamespace(path=str(eval_file))], targets=targets)


def test_the_default_sandbox_adds_no_note_and_tags_the_run_on(suite_tree, caplog):
    root, eval_file = suite_tree
    sandbox.configure(True, [root / "repo"])
    with caplog.at_level(logging.WARNING, "agentv.sandbox"):
        assert sandbox_notes(plan(eval_file, t=Spec())) == []
    assert not caplog.records
    assert run_tags(["s"], ["t"], [])[-1] == "sandbox:on"


def test_a_widened_sandbox_is_one_warning_and_a_note(suite_tree, caplog):
    root, eval_file = suite_tree
    sandbox.configure(True, [root / "repo", root / "outside"])
    with caplog.at_level(logging.WARNING, "agentv.sandbox"):
        notes = sandbox_notes(plan(eval_file, t=Spec()))
    assert notes == [f"sandbox widened: readable beyond the suites' roots: "
                     f"{(root / 'outside').resolve()} (--allow-path / allowed_paths)"]
    assert [r.getMessage() for r in caplog.records] == notes


def test_sandbox_off_is_named_in_the_notes_and_the_tags(suite_tree):
    root, eval_file = suite_tree
    sandbox.configure(True, [root / "repo"])
    notes = sandbox_notes(plan(eval_file, free=Spec(sandbox="off"), boxed=Spec()))
    assert notes == ["sandbox: off for target(s) free (sandbox: off): their programs ran "
                     "unconfined"]
    sandbox.configure(False, [root / "repo"])
    assert sandbox_notes(plan(eval_file))[0].startswith("sandbox: off (--no-sandbox)")
    assert "sandbox:off" in run_tags(["s"], ["t"], [])


@pytest.mark.slow
def test_a_run_with_allow_path_warns_notes_and_tags_its_sandbox(cli, tmp_path):
    from tests.flows.artifacts.test_gates_ui import EXAMPLE_EVAL, flow_run_id, read_run
    wider = tmp_path / "wider"
    wider.mkdir()
    proc = cli("eval", str(EXAMPLE_EVAL), "--out", str(tmp_path / "r.jsonl"),
               "--allow-path", str(wider))
    assert proc.returncode == 0, proc.stderr
    note = f"sandbox widened: readable beyond the suites' roots: {wider.resolve()}"
    assert f"note: {note}" in proc.stdout
    assert sum(note in line for line in proc.stderr.splitlines()) == 1
    run, _ = read_run(flow_run_id(proc.stdout))
    assert "sandbox:on" in run.tags and "sandbox:off" not in run.tags
