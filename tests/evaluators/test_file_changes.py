"""The ``file_changes`` evaluator on diffs made by the workspace's own differ (a template
folder changed on disk: edits, creates, deletes)."""
from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentv.evaluators.base import EvalContext
from agentv.evaluators.registry import build_evaluator
from agentv.providers.agents import file_changes


@pytest.fixture
def diff(tmp_path: Path) -> str:
    (tmp_path / "hello.txt").write_text("hello\n")
    (tmp_path / "obsolete.log").write_text("old\n")
    (tmp_path / "keep.md").write_text("same\n")
    before = file_changes.snapshot(tmp_path)
    (tmp_path / "hello.txt").write_text("hello\nworld\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "utils.ts").write_text("export const x = 1\n")
    (tmp_path / "obsolete.log").unlink()
    return file_changes.diff(tmp_path, before)


def score(config: dict, changes: str | None):
    ev = build_evaluator({"type": "file_changes", **config}, where="dataset.yaml:9")
    return asyncio.run(ev.evaluate(EvalContext(eval_id="c", question="q", candidate_answer="",
                                               file_changes=changes)))


def test_expected_changes_pass(diff):
    r = score({"edited": ["hello.txt"], "created": ["src/utils.ts"],
               "deleted": ["obsolete.log"], "unchanged": ["keep.md"], "contains": ["+world"],
               "only_listed": True}, diff)
    assert r.score == 1.0 and r.verdict == "pass" and "6 of 6" in r.reasoning


def test_each_check_that_fails_is_named_and_scored(diff):
    r = score({"edited": ["hello.txt", "keep.md"], "created": ["obsolete.log"],
               "unchanged": ["src/utils.ts"]}, diff)
    assert r.score == pytest.approx(0.25) and r.verdict == "fail"
    assert r.misses == ["not edited keep.md; not created obsolete.log; not unchanged "
                        "src/utils.ts"]


def test_other_changes_fail_only_listed(diff):
    r = score({"edited": ["hello.txt"], "only_listed": True}, diff)
    assert r.score == 0.5 and "also: obsolete.log, src/utils.ts" in r.misses[0]


def test_no_checks_means_something_changed(diff):
    assert score({}, diff).score == 1.0 and score({}, "").score == 0.0


def test_no_workspace_fails():
    r = score({"edited": ["x"]}, None)
    assert r.score == 0.0 and "without a workspace" in r.misses[0]
