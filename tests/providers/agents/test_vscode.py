"""provider: vscode / vscode-copilot / vscode-insiders against the real ``subagent`` package
(npm 0.4.6, installed by .ci/install.d/30-agent-clis.sh) driving a fake VS Code ``code``
executable (tests/fakes/code) that plays Copilot: it answers the request file subagent
writes by creating the response file. Preflight names what is missing; workers capped at 1."""
from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest

from agentv.providers.agents.vscode import VSCodeProvider
from agentv.providers.base import ConfigError, ProviderError, ProviderTimeout, Request, Target
from agentv.providers.registry import build_provider
from agentv.tasks.plan.plan import EvalOptions, build_plan
from tests import TESTS
from tests.conftest import real_tool

FAKES = TESTS / "fakes"


@pytest.fixture
def subagent(tmp_path, monkeypatch) -> str:
    """The real subagent CLI with one provisioned workspace under a temporary HOME."""
    exe = real_tool("subagent")
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for kind in ("code", "code-insiders"):
        subprocess.run([exe, kind, "provision", "--subagents", "1"], check=True,
                       capture_output=True, env=os.environ)
    return exe


def vscode(exe: str, settings: dict | None = None, kind: str = "vscode") -> VSCodeProvider:
    p = build_provider(Target("copilot", kind, {"subagent": exe, "vscode_cmd": "./code",
                                                # the fake VS Code logs into the test's folder
                                                "sandbox": "off", **(settings or {})},
                              where="targets.yaml:9", base_dir=str(FAKES)))
    assert isinstance(p, VSCodeProvider)
    p.check()
    return p


@pytest.fixture
def request_with_files(tmp_path):
    guide, facts = tmp_path / "python.instructions.md", tmp_path / "facts.txt"
    guide.write_text("Always answer in one line.\n")
    facts.write_text("ANSWER: 7\n")
    return Request("vs-1", "What is the answer?", guideline_paths=[str(guide)],
                   input_files=[str(facts)])


@pytest.mark.slow
def test_reply_comes_from_the_response_file_of_the_real_subagent(subagent, request_with_files,
                                                                tmp_path, monkeypatch):
    log = tmp_path / "code.log"
    monkeypatch.setenv("FAKE_CODE_LOG", str(log))
    template = tmp_path / "agents.code-workspace"
    template.write_text('{"folders": [{"path": "."}]}')
    p = vscode(subagent, {"workspace_template": str(template)}, kind="vscode-copilot")
    r = asyncio.run(p.invoke(request_with_files))
    assert r.text == "tokens ok (2 files); The answer is 7"  # not subagent's status line
    assert r.raw["subagent"] == "subagent-1"
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    chat = next(c for c in calls if c[:2] == ["-r", "chat"] and c[3] != "wakeup")
    facts = Path(request_with_files.input_files[0])
    attached = [chat[i + 1] for i, a in enumerate(chat) if a == "-a"]
    assert attached[:2] == [request_with_files.guideline_paths[0], str(facts)]
    prompt = p.agent_prompt(request_with_files)  # what Copilot got as its agent mode
    token = hashlib.sha256(facts.read_bytes()).hexdigest()
    assert f"* [facts.txt]({facts.as_uri()}) — token `sha256:{token}`" in prompt
    assert prompt.rstrip().endswith("[[ ## user_query ## ]]\nWhat is the answer?")
    workspace = Path(os.environ["HOME"]) / ".subagent" / "vscode-agents" / "subagent-1"
    assert not (workspace / "subagent.lock").exists()  # released for the next case
    assert asyncio.run(p.invoke(request_with_files)).text.endswith("The answer is 7")


@pytest.mark.slow
def test_subagents_own_error_message_is_the_cases_error(subagent, request_with_files):
    workspace = Path(os.environ["HOME"]) / ".subagent" / "vscode-insiders-agents" / "subagent-1"
    (workspace / "subagent.lock").write_text("")
    with pytest.raises(ProviderError) as err:
        asyncio.run(vscode(subagent, kind="vscode-insiders").invoke(request_with_files))
    assert "No unlocked subagents available" in str(err.value)
    assert "subagent code provision" in str(err.value)


@pytest.mark.slow
def test_timeout_unlocks_the_workspace_and_leaves_no_process(subagent, request_with_files,
                                                             monkeypatch):
    monkeypatch.setenv("FAKE_CODE_MODE", "hang")
    p = vscode(subagent, {"timeout_seconds": 4})
    with pytest.raises(ProviderTimeout):
        asyncio.run(p.invoke(request_with_files))
    workspace = Path(os.environ["HOME"]) / ".subagent" / "vscode-agents" / "subagent-1"
    assert not (workspace / "subagent.lock").exists()
    ps = subprocess.run(["ps", "-eww", "-o", "args"], capture_output=True, text=True,
                        check=True).stdout
    assert str(workspace) not in ps and os.environ["HOME"] not in ps


def test_preflight_says_exactly_what_is_missing():
    with pytest.raises(ConfigError) as err:
        vscode("./subagent", {"subagent": "subagent-not-installed",
                              "vscode_cmd": "code-not-installed",
                              "workspace_template": "nowhere.code-workspace"},
               kind="vscode-insiders")
    msg = err.value.message
    assert "the 'subagent' CLI ('subagent-not-installed' not found" in msg
    assert "VS Code Insiders ('code-not-installed' not found on PATH" in msg
    assert "workspace_template file" in msg and "nowhere.code-workspace" in msg
    assert err.value.where == "targets.yaml:9"


def test_workers_are_capped_at_one_with_a_warning(tmp_path):
    (tmp_path / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: copilot\n    provider: vscode\n"
        "    subagent: /usr/bin/true\n")
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


@pytest.mark.slow
def test_file_paths_with_spaces_and_shell_characters_reach_vs_code_intact(
        subagent, tmp_path, monkeypatch):
    """subagent 0.4.6 runs ``code -r chat … -a FILE…`` through a shell, joining the arguments
    with spaces: agentv hands it shell-safe names for such files (links to them)."""
    log = tmp_path / "code.log"
    monkeypatch.setenv("FAKE_CODE_LOG", str(log))
    monkeypatch.setenv("FAKE_CODE_ATTACHED", str(tmp_path / "attached.json"))
    monkeypatch.chdir(tmp_path)  # where a command smuggled into a file name would run
    folder = tmp_path / "my guides (v2)"
    folder.mkdir()
    guide, facts = folder / "python guide.md", folder / "facts;touch PWNED;$(id)'q'.txt"
    guide.write_text("Always answer in one line.\n")
    facts.write_text("ANSWER: 7\n")
    request = Request("vs-2", "What is the answer?", guideline_paths=[str(guide)],
                      input_files=[str(facts)])
    p = vscode(subagent, {"timeout_seconds": 30})
    assert asyncio.run(p.invoke(request)).text == "tokens ok (2 files); The answer is 7"
    assert not (tmp_path / "PWNED").exists()
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    chat = next(c for c in calls if c[:2] == ["-r", "chat"] and c[3] != "wakeup")
    attached = [chat[i + 1] for i, a in enumerate(chat) if a == "-a"]
    assert len(attached) == 3  # the two files, then subagent's request file
    for given, original in zip(attached, (guide, facts)):
        assert Path(given).name == original.name.replace(" ", "_").replace(";", "_") \
            .replace("$", "_").replace("(", "_").replace(")", "_").replace("'", "_")
    assert json.loads((tmp_path / "attached.json").read_text())[:2] == [str(guide), str(facts)]
    assert not Path(attached[0]).exists()  # the links went with the case's temporary folder
