"""provider: vscode / vscode-insiders — structured prompt file with file links and SHA-256
tokens handed to a fake ``subagent``; preflight names what is missing; workers capped at 1."""
from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

import pytest

from providers.base import ConfigError, ProviderError, Request, Target
from providers.vscode import VSCodeProvider
from tasks.plan import EvalOptions, build_plan

FAKES = Path(__file__).parent / "fakes"


def vscode(settings: dict | None = None, kind: str = "vscode") -> VSCodeProvider:
    p = VSCodeProvider(Target("copilot", kind, {"subagent": "./subagent", "vscode_cmd": "./code",
                                                **(settings or {})},
                              where="targets.yaml:9", base_dir=str(FAKES)))
    p.check()
    return p


@pytest.fixture
def request_with_files(tmp_path):
    guide, facts = tmp_path / "python.instructions.md", tmp_path / "facts.txt"
    guide.write_text("Always answer in one line.\n")
    facts.write_text("ANSWER: 7\n")
    question = (f"Read these files first:\n* {guide}\n* {facts}\n\n[[ ## Task ## ]]\n"
                "What is the answer?")
    return Request("vs-1", question, guideline_paths=[str(guide)], input_files=[str(facts)])


def test_prompt_file_with_links_and_sha256_tokens(request_with_files, tmp_path, monkeypatch):
    args_file = tmp_path / "subagent.json"
    monkeypatch.setenv("FAKE_SUBAGENT_ARGS", str(args_file))
    template = tmp_path / "agents.code-workspace"
    template.write_text('{"folders": [{"path": "."}]}')
    r = asyncio.run(vscode({"workspace_template": str(template)}).invoke(request_with_files))
    assert r.text == "tokens ok (2 files); The answer is 7"
    seen = json.loads(args_file.read_text())
    facts = Path(request_with_files.input_files[0])
    token = hashlib.sha256(facts.read_bytes()).hexdigest()
    assert f"* [facts.txt]({facts.as_uri()}) — token `sha256:{token}`" in seen["prompt"]
    assert seen["prompt"].rstrip().endswith("[[ ## user_query ## ]]\nWhat is the answer?")
    argv = seen["argv"]
    assert argv[:3] == ["code", "chat", "-q"] and argv[-2:] == ["--wait", "--silent"]
    assert argv[argv.index("--workspace-template") + 1] == str(template)
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "-a"] == [
        request_with_files.guideline_paths[0], str(facts)]


def test_insiders_and_subagent_failure(request_with_files, monkeypatch):
    monkeypatch.setenv("FAKE_SUBAGENT_MODE", "fail")
    with pytest.raises(ProviderError) as err:
        asyncio.run(vscode(kind="vscode-insiders").invoke(request_with_files))
    assert "exited with code 1" in str(err.value) and "no unlocked subagent" in str(err.value)


def test_preflight_says_exactly_what_is_missing():
    with pytest.raises(ConfigError) as err:
        vscode({"subagent": "subagent-not-installed", "vscode_cmd": "code-not-installed",
                "workspace_template": "nowhere.code-workspace"}, kind="vscode-insiders")
    msg = err.value.message
    assert "the 'subagent' CLI ('subagent-not-installed' not found" in msg
    assert "VS Code Insiders ('code-not-installed' not found on PATH" in msg
    assert "workspace_template file" in msg and "nowhere.code-workspace" in msg
    assert err.value.where == "targets.yaml:9"


def test_workers_are_capped_at_one_with_a_warning(tmp_path):
    (tmp_path / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: copilot\n    provider: vscode\n"
        f"    subagent: {FAKES / 'subagent'}\n")
    suite = tmp_path / "s.yaml"
    suite.write_text("$schema: agentv-eval-v2\ntarget: copilot\nevalcases:\n"
                     "  - id: a\n    input: hi\n  - id: b\n    input: there\n")
    warnings: list[str] = []
    plan = build_plan(EvalOptions(paths=[str(suite)], workers=8), warnings.append)
    assert plan.workers == 1
    text = "\n".join(plan.warnings + warnings)
    assert "target 'copilot' (vscode) runs at most 1 case(s) at a time" in text
    assert "workers lowered from 8 to 1" in text
    dry = build_plan(EvalOptions(paths=[str(suite)], workers=8, dry_run=True))
    assert dry.workers == 8  # --dry-run swaps in the mock, which has no cap
