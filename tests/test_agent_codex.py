"""provider: codex — a fake ``codex`` executable emitting a realistic ``codex exec --json``
event stream: scratch workspace with mirrored files, preread block, answer, trace, errors."""
from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from providers.base import ConfigError, ProviderError, Request, Target
from providers.codex import CodexProvider
from providers.trace import summarize

FAKES = Path(__file__).parent / "fakes"


def codex(settings: dict | None = None, base_dir: Path = FAKES) -> CodexProvider:
    p = CodexProvider(Target("codex", "codex", {"executable": "./codex", **(settings or {})},
                             where="targets.yaml:5", base_dir=str(base_dir)))
    p.check()
    return p


@pytest.fixture
def case_files(tmp_path):
    guide = tmp_path / "guides" / "style.instructions.md"
    facts = tmp_path / "data" / "facts.md"
    for f, text in ((guide, "Be terse.\n"), (facts, "ANSWER: 42\n")):
        f.parent.mkdir(parents=True)
        f.write_text(text)
    question = (f"Read these files first:\n* {guide}\n* {facts}\n\n[[ ## Task ## ]]\n"
                "What is the answer?")
    return Request("life", question, guideline_paths=[str(guide)], input_files=[str(facts)])


def test_event_stream_gives_answer_trace_and_usage(case_files, tmp_path, monkeypatch):
    args_file = tmp_path / "args.json"
    monkeypatch.setenv("FAKE_CODEX_ARGS", str(args_file))
    p = codex({"model": "gpt-5-codex", "profile": "ci", "approval_preset": "read-only"})
    r = asyncio.run(p.invoke(case_files))
    assert r.text == "The answer is 42"
    summary = summarize(r.trace)
    assert summary["tool_calls_by_name"] == {"command_execution": 3, "file_change": 1,
                                             "mcp:docs/search": 1}
    assert summary["error_count"] == 1  # the failing `rg TODO`
    assert summary["llm_call_count"] == 1
    assert summary["token_usage"] == {"input": 2400, "output": 96, "total": 2496}
    calls = [e for e in r.trace if e.type == "tool_call"]
    assert calls[0].arguments == {"command": "bash -lc 'cat style.instructions.md'"}
    assert all(e.duration_ms is not None and e.duration_ms > 0 for e in calls
               if e.name == "command_execution")
    assert (r.usage.input_tokens, r.usage.output_tokens) == (2400, 96)
    assert r.output_messages[0]["tool_calls"][0]["tool"] == "command_execution"
    seen = json.loads(args_file.read_text())
    assert seen["argv"] == ["--profile", "ci", "--model", "gpt-5-codex", "--sandbox", "read-only",
                            "--ask-for-approval", "never", "exec", "--json", "--color",
                            "never", "--skip-git-repo-check", "-"]
    workspace = Path(seen["cwd"])
    assert workspace.name.startswith("agentv-codex-") and not workspace.exists()  # cleaned up
    assert "* style.instructions.md\n* facts.md\n" in seen["prompt"]
    assert seen["prompt"].rstrip().endswith("[[ ## user_query ## ]]\nWhat is the answer?")
    assert "Read these files first" not in seen["prompt"]


def test_legacy_event_format(case_files, monkeypatch):
    monkeypatch.setenv("FAKE_CODEX_MODE", "legacy")
    r = asyncio.run(codex().invoke(case_files))
    assert r.text == "The answer is 42"
    assert summarize(r.trace)["tool_calls_by_name"] == {"command_execution": 1}
    assert (r.usage.input_tokens, r.usage.output_tokens) == (10, 5)


def test_nonzero_exit_and_malformed_output_attach_stdout_and_stderr(case_files, monkeypatch):
    monkeypatch.setenv("FAKE_CODEX_MODE", "fail")
    with pytest.raises(ProviderError) as err:
        asyncio.run(codex().invoke(case_files))
    assert "exited with code 2" in str(err.value) and not err.value.retryable
    assert "stream disconnected" in err.value.details["stderr"]
    monkeypatch.setenv("FAKE_CODEX_MODE", "malformed")
    with pytest.raises(ProviderError) as err:
        asyncio.run(codex().invoke(case_files))
    assert "malformed" in str(err.value) and "not JSON" in str(err.value)
    assert "this is not json" in err.value.details["stdout"]


def test_log_dir_keeps_the_raw_stream(case_files, tmp_path):
    asyncio.run(codex({"log_dir": str(tmp_path / "logs")}).invoke(case_files))
    (log,) = (tmp_path / "logs").glob("*_codex_life_attempt-1.jsonl")
    assert json.loads(log.read_text().splitlines()[0])["type"] == "thread.started"


def test_missing_executable_and_bad_settings_are_configuration_errors(tmp_path):
    with pytest.raises(ConfigError) as err:
        codex({"executable": "codex-not-installed-here"})
    assert err.value.field == "executable" and "not found" in err.value.message
    with pytest.raises(ConfigError, match="not found"):
        codex({"executable": "./missing/codex"}, base_dir=tmp_path)
    with pytest.raises(ConfigError, match="unknown approval_preset 'yolo'"):
        codex({"approval_preset": "yolo"})
    with pytest.raises(ConfigError, match="greater than 0"):
        codex({"timeout_seconds": 0})


def test_configured_cwd_gets_absolute_paths_of_the_mirrored_files(case_files, tmp_path,
                                                                   monkeypatch):
    args_file = tmp_path / "args.json"
    monkeypatch.setenv("FAKE_CODEX_ARGS", str(args_file))
    r = asyncio.run(codex({"cwd": str(tmp_path)}).invoke(case_files))
    assert r.text == "The answer is 42"
    seen = json.loads(args_file.read_text())
    assert seen["cwd"] == str(tmp_path.resolve())
    listed = [line[2:] for line in seen["prompt"].splitlines() if line.startswith("* ")]
    assert [Path(p).name for p in listed] == ["style.instructions.md", "facts.md"]
    assert all(Path(p).is_absolute() and "agentv-codex-" in p for p in listed)
