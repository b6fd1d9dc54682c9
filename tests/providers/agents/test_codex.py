"""provider: codex against the real Codex CLI (npm ``@openai/codex`` 0.169.0, installed by
.ci/install.d/30-agent-clis.sh) talking to a loopback Responses-API SSE stub
(tests/fakes/responses_stub.py) configured through CODEX_HOME/config.toml: a normal turn, a
turn that runs a shell command, a failed turn and a hang. Event mapping for items the stub
cannot make codex emit (declined commands, MCP results/errors, web search, collab) is checked
on lines shaped field for field like codex-rs/exec's ``ThreadEvent``."""
from __future__ import annotations

import asyncio
import hashlib
import json
import re
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from agentv.providers.agents.codex import APPROVAL_PRESETS, CodexProvider
from agentv.providers.agents.codex_events import parse_stream
from agentv.providers.base import ConfigError, ProviderError, ProviderTimeout, Request, Target
from agentv.providers.trace import summarize
from tests.agent_programs import background_sleep, sleepers, watching
from tests.conftest import real_tool
from tests.fakes import responses_stub


@pytest.fixture
def stub():
    url, server = responses_stub.start()
    yield url, server
    server.stop()


@pytest.fixture
def codex_home(tmp_path, stub, monkeypatch) -> Path:
    """CODEX_HOME whose config sends codex to the stub (no retries: failures are final)."""
    home = tmp_path / "codex-home"
    home.mkdir()
    (home / "config.toml").write_text(
        'model = "stub-model"\nmodel_provider = "stub"\n[model_providers.stub]\nname = "stub"\n'
        f'base_url = "{stub[0]}"\nenv_key = "STUB_API_KEY"\nwire_api = "responses"\n'
        "request_max_retries = 0\nstream_max_retries = 0\n")
    monkeypatch.setenv("CODEX_HOME", str(home))
    (tmp_path / "tmp").mkdir()  # workspaces, kept ones too, stay in the test's folder
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    monkeypatch.setenv("STUB_API_KEY", "stub-key")
    return home


def codex(tmp_path: Path, settings: dict | None = None) -> CodexProvider:
    p = CodexProvider(Target("codex", "codex", {"executable": real_tool("codex"),
                                                "log_dir": str(tmp_path / "logs"),
                                                **(settings or {})},
                             where="targets.yaml:5", base_dir=str(tmp_path)))
    p.check()
    return p


@pytest.fixture
def case_files(tmp_path):
    guide = tmp_path / "guides" / "style.instructions.md"
    facts = tmp_path / "data" / "facts.md"
    for f, text in ((guide, "Be terse.\n"), (facts, "ANSWER: 42\n")):
        f.parent.mkdir(parents=True)
        f.write_text(text)
    return Request("life", "What is the answer?", guideline_paths=[str(guide)],
                   input_files=[str(facts)])


def test_normal_turn_prompt_preread_usage_and_no_rollouts(codex_home, stub, tmp_path,
                                                          case_files):
    p = codex(tmp_path, {"approval_preset": "read-only", "model": "stub-model"})
    r = asyncio.run(p.invoke(case_files))
    assert r.text == "The answer is 42"
    sent = stub[1].requests[0]
    user = [i for i in sent["input"] if i.get("role") == "user"][-1]
    received = "".join(c.get("text", "") for c in user["content"])
    # the links point at the case's files as mirrored into codex's workspace (files from
    # outside the eval file's folder: under _files/); the rest is what --dump-prompts shows
    workspace = Path(re.search(r"file://(/[^)]*/workspace)/", received).group(1))
    prompt = p.agent_prompt(case_files)
    for f in map(Path, case_files.guideline_paths + case_files.input_files):
        prompt = prompt.replace(f.as_uri(), (workspace / "_files" / f.name).as_uri())
    assert received == prompt
    facts = Path(case_files.input_files[0])
    token = hashlib.sha256(facts.read_bytes()).hexdigest()
    copy = workspace / "_files" / "facts.md"
    assert f"* [facts.md]({copy.as_uri()}) — token `sha256:{token}`" in prompt
    assert prompt.endswith("[[ ## user_query ## ]]\nWhat is the answer?")
    assert not workspace.exists() and workspace.is_relative_to(tmp_path)  # removed
    summary = summarize(r.trace)
    assert summary["llm_call_count"] == 1 and summary["error_count"] == 0  # warnings ≠ errors
    assert (r.usage.input_tokens, r.usage.output_tokens) == (100, 10)
    assert [e.name for e in r.trace if e.type == "message"] == ["warning"]  # model metadata
    assert not list(codex_home.rglob("rollout-*")) and not (codex_home / "sessions").exists()
    logs = list((tmp_path / "logs").glob("*_codex_life_attempt-1_*.jsonl"))
    assert len(logs) == 1 and '"turn.completed"' in logs[0].read_text()


@pytest.mark.slow
def test_turn_that_runs_a_shell_command(codex_home, tmp_path):
    p = codex(tmp_path, {"approval_preset": "full-access"})
    r = asyncio.run(p.invoke(Request("shell", "RUN: sleep 0.5; echo from-the-shell")))
    assert r.text.startswith("command output:") and "from-the-shell" in r.text
    calls = [e for e in r.trace if e.type == "tool_call"]
    assert [c.name for c in calls] == ["command_execution"]
    assert calls[0].ok and calls[0].extra["exit_code"] == 0
    assert "echo from-the-shell" in calls[0].arguments["command"]
    assert "from-the-shell" in calls[0].result and calls[0].duration_ms > 0
    assert r.output_messages[0]["tool_calls"][0]["tool"] == "command_execution"


@pytest.mark.slow
def test_sandboxed_command_that_fails_is_a_failed_tool_call(codex_home, tmp_path):
    marker = tmp_path / "written"
    # (codex 0.169 emits no command_execution item for a command that has exited before its
    # first output poll: the command sleeps a moment first)
    # (codex's own sandbox cannot start inside agentv's: agentv's enforces the preset, its
    # workspace read-only; a write elsewhere lands in the sandbox's private /tmp)
    p = codex(tmp_path, {"approval_preset": "read-only"})
    r = asyncio.run(p.invoke(Request("ro", f"RUN: sleep 0.5; touch {marker}; touch here")))
    call = [e for e in r.trace if e.type == "tool_call"][0]
    assert not call.ok and call.extra["status"] == "failed" and call.extra["exit_code"] == 1
    assert not marker.exists() and summarize(r.trace)["error_count"] == 1


def test_failed_turn_is_the_cases_error_with_codexs_message(codex_home, tmp_path):
    with pytest.raises(ProviderError) as err:
        asyncio.run(codex(tmp_path).invoke(Request("fail", "FAIL please")))
    assert str(err.value).startswith("codex turn failed: ")
    assert "stub: model overloaded" in str(err.value)
    assert err.value.details["exit_code"] == 1


@pytest.mark.slow
def test_hang_times_out_and_kills_codex_and_its_tools(codex_home, tmp_path):
    mark, command = background_sleep()
    p = codex(tmp_path, {"timeout_seconds": 8, "approval_preset": "full-access"})
    # a tool process codex starts in its own session, then a model request that never ends
    seen, task = asyncio.run(watching(p.invoke(Request("hang", f"RUN: {command}\nHANG")),
                                      mark))
    with pytest.raises(ProviderTimeout):
        task.result()
    time.sleep(1)
    ps = subprocess.run(["ps", "-eww", "-o", "pid,ppid,args"], capture_output=True,
                        text=True).stdout
    assert seen == 1 and sleepers(mark) == 0  # the tool's sleep ran, and is gone
    assert "codex exec" not in ps.replace("ps -eww", "")


@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(APPROVAL_PRESETS))
def test_every_preset_produces_flags_the_real_cli_accepts(codex_home, tmp_path, preset):
    p = codex(tmp_path, {"approval_preset": preset})
    assert asyncio.run(p.invoke(Request("p", "hello"))).text == "echo: hello"


@pytest.mark.parametrize("preset, message", [
    ("untrusted", "not accepted by Codex CLI 0.169"), ("on-failure", "not accepted"),
    ("yolo", "unknown approval_preset 'yolo'")])
def test_unknown_or_removed_presets_are_configuration_errors(preset, message):
    with pytest.raises(ConfigError) as err:
        CodexProvider(Target("codex", "codex", {"approval_preset": preset}, where="t.yaml:5"))
    assert err.value.field == "approval_preset" and message in err.value.message


def test_validate_rejects_a_bad_preset_before_any_run(tmp_path):
    from agentv.tasks.plan.validate import validate_paths
    (tmp_path / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: c\n    provider: codex\n"
        "    approval_preset: auto-edit\n")
    report = validate_paths([str(tmp_path / "targets.yaml")])
    assert report.errors and "approval_preset: unknown approval_preset 'auto-edit'" in \
        report.errors[0]


def test_missing_executable_is_a_configuration_error():
    with pytest.raises(ConfigError, match="codex executable 'codex-nope' not found"):
        CodexProvider(Target("codex", "codex", {"executable": "codex-nope"},
                             where="t.yaml:1")).check()


def _lines(*events: dict) -> list[tuple[float, str]]:
    return [(1000.0 + i, json.dumps(e)) for i, e in enumerate(events)]


def test_every_item_type_of_the_event_schema_is_mapped():
    def item(kind: str, **f) -> dict:
        return {"type": "item.completed", "item": {"id": f"i{kind}", "type": kind, **f}}
    run = parse_stream(_lines(
        {"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"},
        item("reasoning", text="thinking"), item("plan", text="1. look"),
        {"type": "item.started", "item": {"id": "c1", "type": "command_execution",
                                          "command": "rm -rf /", "aggregated_output": "",
                                          "exit_code": None, "status": "in_progress"}},
        {"type": "item.completed", "item": {"id": "c1", "type": "command_execution",
                                            "command": "rm -rf /", "aggregated_output": "",
                                            "exit_code": None, "status": "declined"}},
        item("file_change", changes=[{"path": "a.py", "kind": "update"}], status="completed"),
        item("mcp_tool_call", server="docs", tool="search", arguments={"q": "x"},
             result={"content": [{"type": "text", "text": "hit"}], "structured_content": None},
             error=None, status="completed"),
        item("mcp_tool_call", server="docs", tool="fetch", arguments={}, result=None,
             error={"message": "server gone"}, status="failed"),
        item("web_search", query="codex docs", action={"type": "search"}),
        item("collab_tool_call", tool="spawn_agent", sender_thread_id="t",
             receiver_thread_ids=["u"], prompt="help", agents_states={}, status="completed"),
        item("todo_list", items=[{"text": "a", "completed": True}]),
        item("error", message="model metadata not found"),
        {"type": "item.started", "item": {"id": "c2", "type": "command_execution",
                                          "command": "sleep 9", "aggregated_output": "",
                                          "exit_code": None, "status": "in_progress"}},
        item("agent_message", text="done"),
        {"type": "turn.completed", "usage": {"input_tokens": 5, "cached_input_tokens": 1,
                                             "output_tokens": 2}}), model="m")
    calls = {e.name: e for e in run.trace if e.type == "tool_call"}
    assert run.text == "done"
    assert not calls["command_execution"].ok  # declined is not a success
    assert calls["command_execution"].extra["status"] in ("declined", "incomplete")
    assert calls["mcp:docs/search"].ok and calls["mcp:docs/search"].result["content"][0][
        "text"] == "hit"
    assert not calls["mcp:docs/fetch"].ok and calls["mcp:docs/fetch"].result == {
        "error": "server gone"}
    assert calls["web_search"].arguments == {"query": "codex docs", "action": {"type": "search"}}
    assert calls["collab:spawn_agent"].ok and calls["file_change"].ok
    statuses = sorted(e.extra["status"] for e in run.trace if e.name == "command_execution")
    assert statuses == ["declined", "incomplete"]  # never-completed `sleep 9` is recorded
    notes = [e.name for e in run.trace if e.type == "message"]
    assert notes == ["reasoning", "plan", "todo_list", "warning"]
    summary = summarize(run.trace)
    assert summary["error_count"] == 3  # declined, mcp error, incomplete — not the warning
    assert run.warnings == ["model metadata not found"] and run.failure is None
    llm = [e for e in run.trace if e.type == "llm_call"]
    assert len(llm) == 1 and llm[0].extra == {"cached_input_tokens": 1}
    assert (llm[0].model, llm[0].input_tokens, llm[0].output_tokens) == ("m", 5, 2)


def test_error_event_and_turn_failed_give_the_failure():
    run = parse_stream(_lines({"type": "turn.started"},
                              {"type": "error", "message": "stream disconnected: 500"},
                              {"type": "turn.failed", "error": {"message": "final: 500"}}))
    assert run.failure == "final: 500"
    assert parse_stream(_lines({"type": "error", "message": "fatal"})).failure == "fatal"
    retried = parse_stream(_lines({"type": "error", "message": "Reconnecting... 1/5"},
                                  {"type": "item.completed", "item": {
                                      "id": "m", "type": "agent_message", "text": "ok"}},
                                  {"type": "turn.completed", "usage": {}}))
    assert retried.failure is None and retried.warnings == ["Reconnecting... 1/5"]
