"""The real Claude Code (pinned 2.1.328), named by AgentV 2.x's ``provider: claude-code``,
run through the case runner against the loopback Anthropic API: a case that fails on an
evaluator keeps its workspace — with the file the agent edited, seen live by a code judge
while scoring — and says where; a passing case's workspace is removed."""
from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
import yaml

from agentv.providers import secrets
from agentv.providers.base import Target
from agentv.providers.llm.retry import RetryingProvider, RetryPolicy
from agentv.providers.registry import build_provider
from agentv.tasks.engine.case_runner import CaseRunner, RunOptions, TargetRuntime
from agentv.tasks.load.files import load_suite
from agentv.tasks.plan.expand import Job
from tests.agent_programs import KEY, isolate, settings
from tests.conftest import real_tool
from tests.fakes import agent_api_stub

pytestmark = pytest.mark.slow  # the real program (docs/development.md: the fast subset)

JUDGE = """import json, pathlib, sys
ws = json.load(sys.stdin)["workspace_path"]
text = (pathlib.Path(ws) / "hello.txt").read_text() if ws else "no workspace"
print(json.dumps({"score": 1.0 if "changed" in text else 0.0, "reasoning": text.strip()}))
"""


def suite(folder: Path) -> Path:
    (folder / "template").mkdir(parents=True)
    (folder / "template" / "hello.txt").write_text("hello\n")
    (folder / "data").mkdir()
    (folder / "data" / "facts.md").write_text("ANSWER: 42\n")
    (folder / "judge.py").write_text(JUDGE)
    facts = {"type": "file", "value": "data/facts.md"}
    judge = {"name": "seen", "type": "code_judge", "script": [sys.executable, "judge.py"]}
    data = {"$schema": "agentv-eval-v2", "workspace": {"template": "template"}, "evalcases": [
        {"id": "answer", "input": [{"role": "user", "content": [
            {"type": "text", "value": "What is the answer?"}, facts]}],
         "execution": {"evaluators": [{"name": "42", "type": "contains", "value": "42"}]}},
        {"id": "edit", "input": [{"role": "user", "content": [
            {"type": "text", "value": "RUN: echo changed >> hello.txt"}]}],
         "execution": {"evaluators": [
             judge, {"name": "diff", "type": "file_changes", "edited": ["hello.txt"]},
             {"name": "missing", "type": "contains", "value": "no such text"}]}}]}
    path = folder / "dataset.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_claude_code_case_failing_on_an_evaluator_keeps_its_workspace(
        tmp_path, tmp_path_factory, monkeypatch):
    isolate(monkeypatch, tmp_path, tmp_path_factory)  # workspaces under tmp_path/tmp
    secrets.add([KEY])
    url, stub = agent_api_stub.start()
    try:
        target = Target("claude", "claude-code", {
            "executable": real_tool("claude"), "log_dir": str(tmp_path / "logs"),
            **settings("claude", url)}, where="targets.yaml:3", base_dir=str(tmp_path))
        provider = build_provider(target)
        provider.check()
        runtime = TargetRuntime("claude", RetryingProvider(provider, RetryPolicy(max_retries=0)),
                                is_agent=True)
        runner = CaseRunner({"claude": runtime}, RunOptions())
        cases = load_suite(suite(tmp_path / "suite")).cases

        async def run_all() -> list[dict]:
            return [await runner.run(Job(case, "claude")) for case in cases]
        records = {r["eval_id"]: r for r in asyncio.run(run_all())}
    finally:
        stub.stop()
        secrets.clear()
    answer, edit = records["answer"], records["edit"]
    assert answer["candidate_answer"] == "The answer is 42" and answer["score"] == 1.0
    assert "workspace_path" not in answer  # passed: removed
    kept = Path(edit["workspace_path"])
    assert [p.name for p in (tmp_path / "tmp").iterdir()] == [kept.parent.name]
    assert (kept / "hello.txt").read_text() == "hello\nchanged\n"
    assert (kept / ".." / "agentv").is_dir()  # agentv's own files of the run, kept beside it
    scores = {r["name"]: r for r in edit["evaluator_results"]}
    assert scores["seen"]["score"] == 1.0 and "changed" in scores["seen"]["reasoning"]
    assert scores["diff"]["score"] == 1.0 and scores["missing"]["score"] == 0.0
    assert edit["error"] is None and edit["score"] < 1.0 and "+changed" in edit["file_changes"]
    assert KEY not in json.dumps(records)
