"""One ``agentv eval`` run (subprocess, real Prefect server) of Claude Code, Copilot CLI, pi
and Codex — the real programs — each against its loopback model API, on the same suite: a
workspace template, the case's attached file mirrored in, an answer read from that file, a
shell tool call that edits a template file. Records carry the answer, the trace summary,
the diff of the workspace (checked by ``file_changes``), and never the keys; the edit's trace
is scored by ``tool_trajectory`` and ``execution_metrics`` (v2) and, in an AgentV 4.x file,
by ``tool-trajectory`` and ``execution-metrics``. A case that
fails on an evaluator keeps its workspace: its path is in the record and listed after the
summary."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.agent_programs import KEY, SHELL_TOOL
from tests.conftest import real_tool
from tests.fakes import agent_api_stub, responses_stub

pytestmark = pytest.mark.slow  # end-to-end (docs/development.md: the fast subset)

TOOL = {**SHELL_TOOL, "codex": "command_execution"}
LLM_CALLS = {"claude": 2, "copilot": 2, "pi": 2, "codex": 1}  # codex: one per turn
KINDS = {"claude": "claude", "copilot": "copilot-cli", "pi": "pi-coding-agent",
         "codex": "codex"}


def targets(url: str) -> list[dict]:
    common = {"timeout_seconds": 120, "api_key": "${{ AGENT_STUB_KEY }}"}
    return [
        {"name": "claude", "provider": "claude", "executable": real_tool("claude"),
         "model": "claude-stub", "base_url": url, "allowed_tools": ["Bash"], **common},
        {"name": "copilot", "provider": "copilot-cli", "executable": real_tool("copilot"),
         "model": "gpt-stub", "subprovider": "openai", "base_url": f"{url}/v1", **common},
        {"name": "pi", "provider": "pi-coding-agent", "executable": real_tool("pi"),
         "model": "gpt-stub", "base_url": f"{url}/v1", **common},
        {"name": "codex", "provider": "codex", "executable": real_tool("codex"),
         "approval_preset": "full-access", "timeout_seconds": 120}]


def suite(program: str) -> dict:
    edit = {"execution": {"evaluators": [
        {"name": "shell", "type": "tool_called", "tool": TOOL[program]},
        {"name": "ok", "type": "all_tools_succeeded"},
        {"name": "one", "type": "tool_call_count", "tool": TOOL[program], "min": 1, "max": 1},
        {"name": "diff", "type": "file_changes", "edited": ["hello.txt"], "only_listed": True,
         "contains": ["+changed"]},
        {"name": "trajectory", "type": "tool_trajectory", "mode": "in_order",
         "expected": [{"tool": TOOL[program], "max_duration_ms": 60000}]},
        {"name": "metrics", "type": "execution_metrics", "max_tool_calls": 1,
         "max_llm_calls": LLM_CALLS[program], "max_tokens": 100000,
         "max_duration_ms": 120000}]}}
    facts = {"type": "file", "value": "data/facts.md"}
    return {"$schema": "agentv-eval-v2", "target": program,
            "workspace": {"template": "template"},
            "evalcases": [
                {"id": f"{program}-answer", "expected_outcome": "The answer is 42",
                 "input": [{"role": "user", "content": [
                     {"type": "text", "value": "What is the answer?"}, facts]}],
                 "execution": {"evaluators": [{"name": "42", "type": "contains",
                                               "value": "42"}]}},
                {"id": f"{program}-edit", "input": [{"role": "user", "content": [
                    {"type": "text", "value": "RUN: sleep 0.5; cat data/facts.md; "
                                              "echo changed >> hello.txt"}, facts]}],
                 **edit}]}


def _project(tmp_path, url: str, codex_url: str) -> None:
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        'model = "stub-model"\nmodel_provider = "stub"\n[model_providers.stub]\n'
        f'name = "stub"\nbase_url = "{codex_url}"\nenv_key = "AGENT_STUB_KEY"\n'
        'wire_api = "responses"\nrequest_max_retries = 0\nstream_max_retries = 0\n')
    (tmp_path / "template").mkdir()
    (tmp_path / "template" / "hello.txt").write_text("hello\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "facts.md").write_text("ANSWER: 42\n")
    (tmp_path / "targets.yaml").write_text(yaml.safe_dump(
        {"$schema": "agentv-targets-v2", "targets": targets(url)}, sort_keys=False))


def _run(cli, tmp_path, tmp_path_factory, *args: str):
    url, stub = agent_api_stub.start()
    codex_url, codex_stub = responses_stub.start()
    _project(tmp_path, url, codex_url)
    out = tmp_path / "results.jsonl"
    (tmp_path / "tmp").mkdir()  # the workspaces a failed case keeps land here
    env = {"HOME": str(tmp_path_factory.getbasetemp() / "agent-home"),
           "CODEX_HOME": str(tmp_path / "codex-home"), "AGENT_STUB_KEY": KEY,
           "TMPDIR": str(tmp_path / "tmp")}
    try:
        proc = cli("eval", *args, "--out", str(out), "--workers", "4", "--include-trace",
                   cwd=tmp_path, env=env, timeout=600)
    finally:
        stub.stop()
        codex_stub.stop()
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert KEY not in out.read_text() + proc.stdout + proc.stderr
    return records, proc.stdout


def test_claude_copilot_pi_and_codex_in_one_run(cli, tmp_path, tmp_path_factory):
    files = []
    for program in KINDS:
        files.append(tmp_path / f"{program}.yaml")
        cases = suite(program)
        if program == "claude":  # edits, then fails on an evaluator: its workspace is kept
            cases["evalcases"].append({"id": "claude-kept", "input": "RUN: echo changed >> "
                                       "hello.txt", "execution": {"evaluators": [
                                           {"name": "x", "type": "contains", "value": "nope"}]}})
        files[-1].write_text(yaml.safe_dump(cases, sort_keys=False))
    records, stdout = _run(cli, tmp_path, tmp_path_factory, *map(str, files))
    recs = {r["eval_id"]: r for r in records}
    assert len(recs) == 9
    kept = recs["claude-kept"]["workspace_path"]
    assert recs["claude-kept"]["score"] == 0.0
    assert Path(kept, "hello.txt").read_text() == "hello\nchanged\n"
    assert f"Preserved workspaces:\n  claude-kept [claude] -> {kept}\n" in stdout
    assert [p.name for p in (tmp_path / "tmp").glob("agentv-*")] == [Path(kept).parent.name]
    for program in KINDS:
        answer, edit = recs[f"{program}-answer"], recs[f"{program}-edit"]
        assert answer["candidate_answer"] == "The answer is 42", answer
        assert answer["score"] == 1.0 and answer["file_changes"] == ""
        assert edit["score"] == 1.0, edit["evaluator_results"]
        assert edit["trace_summary"]["tool_calls_by_name"] == {TOOL[program]: 1}
        scored = {r["name"]: r for r in edit["evaluator_results"]}
        assert scored["trajectory"]["score"] == 1.0, scored["trajectory"]
        assert scored["trajectory"]["hits"][0] == f"Found {TOOL[program]} at position 0"
        assert "completed in" in scored["trajectory"]["hits"][1]  # its measured duration
        metrics = scored["metrics"]
        assert metrics["score"] == 1.0 and len(metrics["hits"]) == 4, metrics
        assert (metrics["details"]["tool_calls"], metrics["details"]["llm_calls"]) == (
            1, LLM_CALLS[program])
        assert 0 < metrics["details"]["duration_ms"] < 120000
        assert "ANSWER: 42" in edit["candidate_answer"]  # the mirrored file, read by the tool
        assert "+++ b/hello.txt" in edit["file_changes"]
        assert "workspace_path" not in edit  # passed: removed


def suite4() -> dict:
    """The edit case in AgentV 4.x's format (``tests:`` / ``assertions:``), scored by 4.x's
    ``tool-trajectory`` (every call one of the programs' shell tools, each within 60 s) and
    ``execution-metrics``."""
    shells = [{"tool": t, "max_duration_ms": 60000} for t in sorted(set(TOOL.values()))]
    return {"name": "agents4", "execution": {"target": "claude"},
            "workspace": {"template": "template"},
            "tests": [{"id": "edit4", "criteria": "hello.txt changed", "input": [
                {"role": "user", "content": [
                    {"type": "text", "value": "RUN: sleep 0.5; cat data/facts.md; "
                                              "echo changed >> hello.txt"},
                    {"type": "file", "value": "data/facts.md"}]}],
                "assertions": [
                    {"name": "shell-only", "type": "tool-trajectory", "mode": "subset",
                     "expected": shells},
                    {"name": "metrics", "type": "execution-metrics", "max_tool_calls": 1,
                     "max_llm_calls": 2, "max_tokens": 100000,
                     "max_duration_ms": 120000}]}]}


def test_one_suite_on_the_four_agents_with_target_repeated(cli, tmp_path, tmp_path_factory):
    """The same cases on every agent in one run: ``--target`` repeated (the case × target
    matrix), one record per pair; beside them an AgentV 4.x file whose tool-trajectory and
    execution-metrics score each agent's trace."""
    shared = suite("claude")
    for case in shared["evalcases"]:
        case["id"] = case["id"].replace("claude-", "")
        if case["id"] == "edit":  # what the tool is called differs by program: checked below
            case["execution"]["evaluators"] = [
                e for e in case["execution"]["evaluators"]
                if e["type"] not in ("tool_called", "tool_call_count", "tool_trajectory")]
    f, f4 = tmp_path / "agents.yaml", tmp_path / "agents4.eval.yaml"
    f.write_text(yaml.safe_dump(shared, sort_keys=False))
    f4.write_text(yaml.safe_dump(suite4(), sort_keys=False))
    targets_args = [a for program in KINDS for a in ("--target", program)]
    recs = {(r["target"], r.get("eval_id") or r["test_id"]): r
            for r in _run(cli, tmp_path, tmp_path_factory, str(f), str(f4), *targets_args)[0]}
    assert len(recs) == 12
    for program in KINDS:
        answer, edit = recs[(program, "answer")], recs[(program, "edit")]
        assert answer["candidate_answer"] == "The answer is 42", (program, answer)
        assert edit["score"] == 1.0, (program, edit["evaluator_results"])
        assert edit["trace_summary"]["tool_calls_by_name"] == {TOOL[program]: 1}
        assert "+++ b/hello.txt" in edit["file_changes"]
        edit4 = recs[(program, "edit4")]
        assert edit4["score"] == 1.0 and edit4["execution_status"] == "ok", (program, edit4)
        graders = {g["name"]: g for g in edit4["scores"]}
        trajectory, metrics = graders["shell-only"], graders["metrics"]
        assert trajectory["score"] == 1.0 and trajectory["assertions"][0] == {
            "text": f"Position 0: {TOOL[program]} is in allowed set", "passed": True}
        assert metrics["score"] == 1.0 and all(a["passed"] for a in metrics["assertions"])
        assert metrics["details"]["tool_calls"] == 1
        assert metrics["details"]["llm_calls"] == LLM_CALLS[program]
        usage = edit4["token_usage"]  # AgentV's metrics count input + output, not cached
        assert metrics["details"]["tokens"] == usage["input"] + usage["output"]
