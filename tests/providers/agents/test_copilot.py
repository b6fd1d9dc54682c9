"""provider: copilot-cli against the real GitHub Copilot CLI 1.0.102 (bring-your-own OpenAI
provider on loopback): presets map to permission flags the installed version accepts,
read-only denies the shell, tokens come from its usage file, the provider settings reach it
only as COPILOT_PROVIDER_* variables (offline mode on), and settings are checked."""
from __future__ import annotations

import asyncio
import json

import pytest

from agentv.providers.agents.copilot import PRESETS, CopilotSettings
from agentv.providers.base import ConfigError, Request
from agentv.providers.base_settings import parse_settings
from tests.agent_programs import KEY, build, isolate
from tests.fakes import agent_api_stub


@pytest.fixture
def stub(tmp_path_factory, monkeypatch, tmp_path):
    isolate(monkeypatch, tmp_path, tmp_path_factory)
    url, server = agent_api_stub.start()
    yield url, server
    server.stop()


@pytest.mark.slow  # the real program
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_is_accepted_by_the_real_program(stub, tmp_path, preset):
    p = build("copilot", stub[0], tmp_path, approval_preset=preset)
    assert asyncio.run(p.invoke(Request("p", "hello"))).text == "echo: hello"


@pytest.mark.slow  # the real program
def test_read_only_denies_the_shell(stub, tmp_path):
    p = build("copilot", stub[0], tmp_path, approval_preset="read-only")
    r = asyncio.run(p.invoke(Request("ro", "RUN: touch made-it")))
    call = next(e for e in r.trace if e.type == "tool_call")
    assert not call.ok and call.extra["denied"] == "denied" and r.file_changes == ""


def test_provider_settings_become_its_environment_only(stub, tmp_path):
    p = build("copilot", stub[0], tmp_path, api_version="2024-10-21")
    env = p.program_env(None)
    assert env["COPILOT_PROVIDER_API_KEY"] == KEY and env["COPILOT_OFFLINE"] == "true"
    assert env["COPILOT_PROVIDER_WIRE_API"] == "completions"
    assert env["COPILOT_PROVIDER_AZURE_API_VERSION"] == "2024-10-21"


@pytest.mark.slow  # the real program
def test_system_prompt_leads_the_prompt(stub, tmp_path):
    p = build("copilot", stub[0], tmp_path, system_prompt="Be brief.")
    r = asyncio.run(p.invoke(Request("sys", "hello")))
    assert r.text == "echo: Be brief."


@pytest.mark.parametrize("raw, field", [({"subprovider": "bedrock"}, "subprovider"),
                                        ({"api_format": "grpc"}, "api_format"),
                                        ({"approval_preset": "yolo"}, "approval_preset")])
def test_bad_settings_name_the_field(raw, field):
    with pytest.raises(ConfigError) as err:
        parse_settings(CopilotSettings, raw, where="targets.yaml:4")
    assert err.value.field == field


@pytest.mark.slow  # the real program
def test_duration_is_copilots_session_duration_and_no_cost_is_claimed(stub, tmp_path):
    r = asyncio.run(build("copilot", stub[0], tmp_path).invoke(Request("cost", "hello")))
    log = next((tmp_path / "logs").glob("*.jsonl")).read_text().splitlines()
    result = json.loads(log[-1])
    assert result["type"] == "result"
    assert r.raw["duration_ms"] == result["usage"]["sessionDurationMs"] > 0
    assert r.raw["duration_ms"] <= r.latency_ms
    # Copilot reports premium requests, not dollars: the usage carries tokens only
    assert r.usage.cost_usd is None and (r.usage.input_tokens, r.usage.output_tokens) == (100, 10)
