"""Provider facts live on the provider class and are read through the registry: every kind's
family, settings model, credentials, batching and workers; the readers (validate, the request
record, the retry policy, redaction) agree with them, and reading them imports nothing heavy."""
from __future__ import annotations

import subprocess
import sys

import pytest

from agentv.providers import registry
from agentv.providers.base import BaseProvider, ConfigError, Request, Response, Target
from agentv.providers.base_settings import ProviderSettings
from agentv.providers.facts import ProviderFacts
from tests.conftest import ROOT

FAMILIES = {"mock": "mock", "openai": "llm", "azure": "llm", "azure-openai": "llm",
            "anthropic": "llm", "gemini": "llm", "google": "llm", "litellm": "llm",
            "cli": "command", "codex": "agent", "vscode": "agent", "vscode-copilot": "agent",
            "vscode-insiders": "agent"}


def test_every_kind_declares_its_facts():
    assert set(FAMILIES) <= set(registry.known_kinds())
    for kind, family in FAMILIES.items():
        found = registry.facts(kind)
        assert found.family == family, kind
        assert found.settings is not None and issubclass(found.settings, ProviderSettings)
        assert registry.settings_model(kind) is found.settings
        cls = registry.provider_class(kind)
        assert (cls.is_agent, cls.supports_batch, cls.max_workers) == (
            found.agent_prompt, found.batching, found.max_workers)
    assert registry.facts("cli").batching and registry.facts("vscode").max_workers == 1
    assert registry.facts("openai").secret_env == ("OPENAI_API_KEY",)
    assert registry.facts("codex").program == "codex"


def test_agentv_agent_kinds_keep_agent_provider_request():
    """AgentV's agent providers (vscode-copilot included) record agent_provider_request;
    LLMs, the cli command, mock and a Python callable record lm_provider_request."""
    from agentv.tasks.plan.expand import provider_request_record, writes_agent_request
    agents = {k for k, f in FAMILIES.items() if f == "agent"}
    assert {k for k in FAMILIES if writes_agent_request(k)} == agents
    assert not writes_agent_request("python") and not writes_agent_request("no-such-kind")
    assert writes_agent_request("claude-code")
    request = Request(eval_id="e", question="q", guideline_paths=["g.md"])
    assert provider_request_record(request, "vscode-copilot")[0] == "agent_provider_request"
    assert provider_request_record(request, "cli")[0] == "lm_provider_request"


@pytest.mark.parametrize("alias, kind", [
    ("claude-cli", "claude"), ("claude-code", "claude"), ("codex-cli", "codex"),
    ("copilot", "copilot-cli"), ("pi", "pi-coding-agent")])
def test_agentv_provider_aliases_build_the_same_target(alias, kind):
    """AgentV 4.42.4's names of the coding agents (``resolveTargetDefinition``), and 2.6's
    ``claude-code``: the same provider class, settings and facts."""
    assert registry.provider_class(alias) is registry.provider_class(kind)
    assert registry.facts(alias) == registry.facts(kind)
    provider = registry.build_provider(Target("t", alias, {}, where="targets.yaml:2"))
    assert provider.kind == kind


def test_validate_builds_every_agent_target_without_running_it(tmp_path):
    from agentv.tasks.plan.validate import validate_paths
    (tmp_path / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n"
        "  - name: copilot\n    provider: vscode-copilot\n"
        "    workspace_template: nope.code-workspace\n"
        "  - name: shell\n    provider: cli\n    command_template: echo {PROMPT}\n"
        "    prompt_via: stdin\n")
    report = validate_paths([str(tmp_path / "targets.yaml")])
    assert len(report.errors) == 1 and "prompt_via: stdin" in report.errors[0]


class OldStyle(BaseProvider):
    """A provider written before facts: its three class attributes still count."""

    kind = "old"
    is_agent = True
    max_workers = 2

    async def invoke(self, request: Request) -> Response:
        return Response(text=request.question)


class OldSettings(ProviderSettings):
    pass


def test_a_class_without_facts_gets_them_from_its_old_attributes():
    assert OldStyle.facts == ProviderFacts("agent", max_workers=2)
    registry.register("old", OldStyle, OldSettings)
    try:
        assert registry.settings_model("old") is OldSettings
        assert registry.facts("old").agent_record and OldStyle.is_agent
    finally:
        del registry.REGISTRY["old"]
    with pytest.raises(ConfigError, match="unknown provider 'old'"):
        registry.facts("old", "targets.yaml:3")


def test_a_providers_credentials_are_secret_once_its_target_is_used(monkeypatch):
    from agentv.providers import secrets
    from agentv.tasks.load.redact import register, secret_values
    monkeypatch.setenv("CODEX_API_KEY", "codex-key-0123456789")
    secrets.clear()
    try:
        register(secret_values([Target("agent", "codex", {}), Target("fn", "python")]))
        assert secrets.scrub("key=codex-key-0123456789") == "key=***"
    finally:
        secrets.clear()


def test_reading_the_facts_imports_nothing_heavy():
    code = ("import sys\nfrom providers import registry\n"
            "for kind in registry.known_kinds():\n    registry.facts(kind)\n"
            "heavy = [m for m in ('litellm', 'prefect', 'aiohttp', 'pandas', 'pyarrow')"
            " if m in sys.modules]\nprint('HEAVY', heavy)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert "HEAVY []" in done.stdout, done.stdout + done.stderr


def test_facts_are_made_once_and_again_when_the_kind_is_registered_anew(monkeypatch):
    monkeypatch.setattr(registry, "REGISTRY", dict(registry.REGISTRY))

    class First(BaseProvider):
        facts = ProviderFacts(family="llm")

    class Second(BaseProvider):
        facts = ProviderFacts(family="agent")

    registry.register("cached-kind", First)
    assert registry.facts("cached-kind") is registry.facts("cached-kind")
    assert registry.facts("cached-kind").family == "llm"
    registry.register("cached-kind", Second)
    assert registry.facts("cached-kind").family == "agent"
    First.facts = ProviderFacts(family="command")  # the class's own facts changed
    registry.register("cached-kind", First)
    assert registry.facts("cached-kind").family == "command"
