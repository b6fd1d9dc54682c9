"""provider: claude against the real Claude Code 2.1.328 and the loopback Messages API:
presets map to permission modes the installed version accepts (bypassPermissions is refused
as root: a configuration error before any run), a read-only run cannot write, the system
prompt is appended to Claude Code's own, settings are typed and checked."""
from __future__ import annotations

import asyncio
import json
import os

import pytest

from agentv.providers.agents.claude import PRESETS, ClaudeProvider, ClaudeSettings
from agentv.providers.base import ConfigError, Request, Target
from agentv.providers.base_settings import parse_settings
from tests.agent_programs import build, isolate
from tests.fakes import agent_api_stub


@pytest.fixture
def stub(tmp_path_factory, monkeypatch, tmp_path):
    isolate(monkeypatch, tmp_path, tmp_path_factory)
    url, server = agent_api_stub.start()
    yield url, server
    server.stop()


ROOT = os.geteuid() == 0
USABLE = [p for p in PRESETS if not (ROOT and p == "full-access")]


@pytest.mark.slow  # the real program
@pytest.mark.parametrize("preset", USABLE)
def test_every_preset_is_accepted_by_the_real_program(stub, tmp_path, preset):
    p = build("claude", stub[0], tmp_path, approval_preset=preset, max_turns=3)
    assert asyncio.run(p.invoke(Request("p", "hello"))).text == "echo: hello"


def test_read_only_denies_a_write(stub, tmp_path):
    p = build("claude", stub[0], tmp_path, approval_preset="read-only", allowed_tools=None)
    r = asyncio.run(p.invoke(Request("ro", "RUN: touch made-it")))
    call = next(e for e in r.trace if e.type == "tool_call")
    assert not call.ok and r.file_changes == ""


@pytest.mark.slow  # the real program
def test_system_prompt_is_appended_to_claude_codes_own(stub, tmp_path):
    p = build("claude", stub[0], tmp_path, system_prompt="Answer like a pirate.")
    asyncio.run(p.invoke(Request("sys", "hello")))
    system = str(stub[1].requests[-1].body.get("system"))
    assert "Answer like a pirate." in system and "Claude" in system


@pytest.mark.skipif(not ROOT, reason="Claude Code refuses bypassPermissions only as root")
@pytest.mark.parametrize("raw", [{"approval_preset": "full-access"},
                                 {"bypass_permissions": True}])
def test_bypass_as_root_is_a_configuration_error(raw):
    with pytest.raises(ConfigError, match="refused by Claude Code 2.1.328 when run as root"):
        ClaudeProvider(Target("c", "claude", raw, where="targets.yaml:4"))
    with pytest.raises(ConfigError) as err:
        parse_settings(ClaudeSettings, raw, where="targets.yaml:4")
    assert "refused by Claude Code 2.1.328 when run as root" in str(err.value)
    assert err.value.field == next(iter(raw))


@pytest.mark.parametrize("raw, field", [({"approval_preset": "yolo"}, "approval_preset"),
                                        ({"max_turns": 0}, "max_turns"),
                                        ({"timeout_seconds": -1}, "timeout_seconds")])
def test_bad_settings_name_the_field(raw, field):
    with pytest.raises(ConfigError) as err:
        parse_settings(ClaudeSettings, raw, where="targets.yaml:4")
    assert err.value.field == field


def test_credentials_are_secret_fields():
    config = parse_settings(ClaudeSettings, {"api_key": "k-123456", "bearer_token": "t-654321"},
                            where="targets.yaml:4")
    from agentv.providers.base_settings import secret_values
    assert sorted(secret_values(config)) == ["k-123456", "t-654321"]


@pytest.mark.slow  # the real program
def test_cost_and_duration_are_claude_codes_own(stub, tmp_path):
    r = asyncio.run(build("claude", stub[0], tmp_path).invoke(Request("cost", "hello")))
    log = next((tmp_path / "logs").glob("*.jsonl")).read_text().splitlines()
    result = json.loads(log[-1])
    assert result["type"] == "result" and result["total_cost_usd"] > 0
    assert r.usage.cost_usd == pytest.approx(result["total_cost_usd"])
    assert r.raw["duration_ms"] == result["duration_ms"] > 0
    assert r.raw["duration_ms"] <= r.latency_ms
