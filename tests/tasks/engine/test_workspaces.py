"""An agent case's workspace is finished after scoring (``tasks.engine.workspaces``): the
evaluators — a code judge reading the workspace, ``file_changes`` — see it as the agent left
it; a case that fails on an evaluator or errors keeps it (``workspace_path`` in the record),
a passing case's is removed unless ``--keep-workspaces`` or ``retain_on_success: keep``.

Fast: the provider here does what ``AgentCliProvider.invoke`` does around its program (a
real ``open_workspace``, the edit an agent would make, the hand-over); the real programs
are driven in ``test_agent_workspaces.py``."""
from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
import yaml

from agentv.providers.agents.workspace import open_workspace
from agentv.providers.base import Response
from agentv.providers.llm.retry import RetryingProvider, RetryPolicy
from agentv.tasks.engine.case_runner import CaseRunner, RunOptions, TargetRuntime
from agentv.tasks.engine.workspaces import case_failed
from agentv.tasks.load.files import load_suite
from agentv.tasks.plan.expand import Job

JUDGE = """import json, pathlib, sys
ws = json.load(sys.stdin)["workspace_path"]
text = (pathlib.Path(ws) / "hello.txt").read_text() if ws else ""
print(json.dumps({"score": 1.0 if "changed" in text else 0.0, "reasoning": text.strip()}))
"""


class EditingAgent:
    """Opens the case's workspace, appends to hello.txt, answers "done"; hands the
    workspace over when asked, as the agent-CLI base does."""
    name, kind = "agent", "claude"

    def __init__(self, fail: bool = False):
        self.fail, self.workspaces = fail, []  # type: ignore[var-annotated]

    def check(self) -> None: ...

    async def invoke(self, request):
        ws = await open_workspace("agent", request, None)
        self.workspaces.append(ws)
        with open(ws.path / "hello.txt", "a") as fh:
            fh.write("changed\n")
        if self.fail:
            raise RuntimeError("scoring never starts")
        response = Response(text="done", file_changes=ws.changes())
        if request.hand_over_workspace:
            response.workspace, response.workspace_path = ws, str(ws.path)
        else:
            response.workspace_path = ws.finish(failed=False)
        return response


def suite_file(tmp_path: Path, workspace: dict | None = None, v4: bool = False) -> Path:
    (tmp_path / "template").mkdir(exist_ok=True)
    (tmp_path / "template" / "hello.txt").write_text("hello\n")
    (tmp_path / "judge.py").write_text(JUDGE)
    judge = {"name": "seen", "type": "code_judge", "script": [sys.executable, "judge.py"]}
    miss = {"name": "missing", "type": "contains", "value": "no such text"}
    data = {"$schema": "agentv-eval-v2", "workspace": {"template": "template", **(workspace or {})},
            "evalcases": [
                {"id": "passes", "input": "edit hello.txt",
                 "execution": {"evaluators": [judge]}},
                {"id": "fails", "input": "edit hello.txt",
                 "execution": {"evaluators": [judge, miss]}}]}
    if v4:
        data = {"workspace": data["workspace"], "tests": [
            {"id": "passes", "input": "edit hello.txt", "assertions": [
                {"type": "contains", "value": "done"}]},
            {"id": "fails", "input": "edit hello.txt", "assertions": [
                {"type": "contains", "value": "no such text"}]}]}
    path = tmp_path / "dataset.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def run(path: Path, agent: EditingAgent, keep_all: bool = False) -> dict[str, dict]:
    runtime = TargetRuntime("agent", RetryingProvider(agent, RetryPolicy(max_retries=0)), True)
    runner = CaseRunner({"agent": runtime}, RunOptions(keep_workspaces=keep_all))

    async def all_cases() -> list[dict]:
        return [await runner.run(Job(case, "agent")) for case in load_suite(path).cases]
    return {r["eval_id"]: r for r in asyncio.run(all_cases())}


@pytest.fixture(autouse=True)
def own_tmp(tmp_path, monkeypatch):
    import tempfile
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))


def test_a_failed_case_keeps_its_workspace_and_a_passing_one_is_removed(tmp_path):
    agent = EditingAgent()
    records = run(suite_file(tmp_path), agent)
    passed, failed = records["passes"], records["fails"]
    assert passed["score"] == 1.0 and "workspace_path" not in passed
    assert not agent.workspaces[0].root.exists()
    judge = failed["evaluator_results"][0]
    assert judge["score"] == 1.0 and judge["reasoning"] == "hello\nchanged"  # saw it live
    kept = Path(failed["workspace_path"])
    assert kept == agent.workspaces[1].path and failed["score"] < 1.0
    assert (kept / "hello.txt").read_text() == "hello\nchanged\n"
    assert "+changed" in failed["file_changes"]
    json.dumps(records)  # the handed-over workspace object stays out of the record


def test_keep_workspaces_keeps_the_passing_cases_too(tmp_path):
    records = run(suite_file(tmp_path), EditingAgent(), keep_all=True)
    assert all(Path(r["workspace_path"], "hello.txt").is_file() for r in records.values())


def test_retention_set_in_the_eval_file_wins(tmp_path):
    records = run(suite_file(tmp_path, {"retain_on_success": "cleanup",
                                        "retain_on_failure": "cleanup"}),
                  EditingAgent(), keep_all=True)
    assert not any("workspace_path" in r for r in records.values())
    assert not any((tmp_path / "tmp").iterdir())


def test_an_agentv4_quality_failure_keeps_its_workspace(tmp_path):
    records = run(suite_file(tmp_path, v4=True), EditingAgent())
    assert records["passes"]["execution_status"] == "ok"
    assert "workspace_path" not in records["passes"]
    assert records["fails"]["execution_status"] == "quality_failure"
    assert Path(records["fails"]["workspace_path"], "hello.txt").is_file()


@pytest.mark.parametrize("retain, kept", [("keep", True), ("cleanup", False)])
def test_scoring_cut_short_finishes_the_workspace_as_a_failure(tmp_path, retain, kept):
    """A run cancelled while a judge reads the workspace: the case runner lets go of it as
    a failed case's (kept by default, removed with ``retain_on_failure: cleanup``)."""
    agent = EditingAgent()
    runtime = TargetRuntime("agent", RetryingProvider(agent, RetryPolicy(max_retries=0)), True)
    runner = CaseRunner({"agent": runtime}, RunOptions())
    (tmp_path / "slow.py").write_text("import time; time.sleep(30)\n")
    case = load_suite(suite_file(tmp_path, {"retain_on_failure": retain})).cases[0]
    case.evaluators[0].script = [sys.executable, "slow.py"]

    async def cancelled() -> None:
        done = await runner.invoke(Job(case, "agent"))
        assert done.response is not None and done.response.workspace is not None
        task = asyncio.ensure_future(runner.evaluate(done))
        await asyncio.sleep(0.5)  # the judge is running
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert done.response.workspace is None  # let go
    asyncio.run(cancelled())
    assert agent.workspaces[0].path.is_dir() is kept


@pytest.mark.parametrize("record, failed", [
    ({"error": "boom", "score": 0.0}, True),
    ({"error": None, "verdict": "pass", "score": 0.1}, False),  # --threshold / 4.x verdict
    ({"error": None, "verdict": "fail", "score": 0.9}, True),
    ({"error": None, "score": 0.9}, False),
    ({"error": None, "score": 0.7}, True),  # borderline is not a pass
])
def test_a_case_is_failed_unless_its_record_is_a_pass(record, failed):
    assert case_failed(record) is failed
