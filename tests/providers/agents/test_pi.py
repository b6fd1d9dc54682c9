"""provider: pi-coding-agent against the real pi 0.73.1 (an OpenAI-compatible loopback
endpoint through a private models.json): presets choose the tools pi offers the model,
thinking levels are accepted, the key is named in models.json by its variable only, pi's
own retries are off (a failed call fails at once), and settings are checked."""
from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from agentv.providers.agents.pi import KEY_ENV, PRESETS, PiSettings, key_variable
from agentv.providers.base import ConfigError, ProviderError, Request
from agentv.providers.base_settings import parse_settings
from tests.agent_programs import KEY, PI_PRICES, build, isolate, priced_pi
from tests.fakes import agent_api_stub


@pytest.fixture
def stub(tmp_path_factory, monkeypatch, tmp_path):
    isolate(monkeypatch, tmp_path, tmp_path_factory)
    url, server = agent_api_stub.start()
    yield url, server
    server.stop()


def offered(stub) -> list[str]:
    body = stub[1].requests[-1].body
    return sorted(t["function"]["name"] for t in body.get("tools") or [])


@pytest.mark.slow  # the real program
@pytest.mark.parametrize("preset, tools", [
    ("read-only", ["find", "grep", "ls", "read"]), ("auto", ["bash", "edit", "read", "write"]),
    ("full-access", ["bash", "edit", "find", "grep", "ls", "read", "write"])])
def test_presets_choose_the_tools_offered(stub, tmp_path, preset, tools):
    p = build("pi", stub[0], tmp_path, approval_preset=preset)
    assert asyncio.run(p.invoke(Request("p", "hello"))).text == "echo: hello"
    assert offered(stub) == tools and set(PRESETS) == {"read-only", "auto", "full-access"}


@pytest.mark.slow  # the real program
def test_tools_and_thinking_are_passed(stub, tmp_path):
    p = build("pi", stub[0], tmp_path, tools="read,bash", thinking="low")
    asyncio.run(p.invoke(Request("t", "hello")))
    assert offered(stub) == ["bash", "read"]


def test_models_json_names_the_key_variable_never_the_key(stub, tmp_path):
    p = build("pi", stub[0], tmp_path)
    side = tmp_path / "side"
    side.mkdir()
    ws = type("Ws", (), {"side": side})()
    env = p.program_env(ws)
    config = (Path(env["PI_CODING_AGENT_DIR"]) / "models.json").read_text()
    assert KEY not in config and json.loads(config)["providers"]["agentv"]["apiKey"] == KEY_ENV
    assert env[KEY_ENV] == KEY
    settings = json.loads((Path(env["PI_CODING_AGENT_DIR"]) / "settings.json").read_text())
    assert settings == {"retry": {"enabled": False}}


@pytest.mark.slow  # the real program
def test_failed_call_fails_at_once_without_pis_retries(stub, tmp_path):
    started = time.monotonic()
    with pytest.raises(ProviderError, match="pi run failed: 400 stub: model overloaded"):
        asyncio.run(build("pi", stub[0], tmp_path).invoke(Request("f", "FAIL")))
    assert time.monotonic() - started < 12  # pi's own backoff alone would take 14 s
    assert len(stub[1].requests) == 1


def test_key_variable_of_each_subprovider():
    assert [key_variable(p) for p in ("openai", "anthropic", "google", "azure", None)] == [
        "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "AZURE_OPENAI_API_KEY",
        "GEMINI_API_KEY"]


@pytest.mark.parametrize("raw, field", [({"thinking": "max"}, "thinking"),
                                        ({"approval_preset": "yolo"}, "approval_preset")])
def test_bad_settings_name_the_field(raw, field):
    with pytest.raises(ConfigError) as err:
        parse_settings(PiSettings, raw, where="targets.yaml:4")
    assert err.value.field == field


@pytest.mark.slow  # the real program
def test_cost_is_pis_own_for_a_priced_model(stub, tmp_path, monkeypatch):
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "pi-agent"))
    p = build("pi", stub[0], tmp_path, **priced_pi(stub[0], tmp_path / "pi-agent"))
    r = asyncio.run(p.invoke(Request("cost", "hello")))
    per_million = 80 * PI_PRICES["input"] + 10 * PI_PRICES["output"] + 20 * PI_PRICES[
        "cacheRead"]
    assert r.text == "echo: hello" and r.usage.cost_usd == pytest.approx(per_million / 1e6)
    llm = [e for e in r.trace if e.type == "llm_call"]
    assert [e.cost_usd for e in llm] == pytest.approx([per_million / 1e6])
