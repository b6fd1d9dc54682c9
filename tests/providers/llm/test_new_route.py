"""Adding an LLM provider is one module and one registry line: a settings model saying where
its key, model and endpoint come from, a wire client class with its facts, and
``register(kind, cls)``. The new kind is then built, preflight-checked, called on loopback,
validated, described by the JSON Schema, listed in the docs table and redacted like the
built-in ones."""
from __future__ import annotations

import asyncio
from typing import ClassVar

import pytest

from agentv.providers import registry
from agentv.providers.base import ConfigError, Request, Target
from agentv.providers.llm.litellm_route import llm_facts
from agentv.providers.llm.openai import ChatCompletionsWire
from agentv.providers.llm.settings import KindSpec, LLMSettings

KEY = "sk-acme-SECRET-0123456789"


# ------------------------------------------------------------- the new provider's module
class AcmeSettings(LLMSettings):
    kind: ClassVar[str] = "acme"
    spec: ClassVar[KindSpec | None] = KindSpec("acme/", "ACME_API_KEY", "ACME_MODEL",
                                               "ACME_BASE_URL", base_required=True)


class AcmeProvider(ChatCompletionsWire):
    """Acme's chat completions (OpenAI's wire format) over agentv's own client."""

    kind = "acme"
    facts = llm_facts(AcmeSettings)

    def url(self) -> str:
        return f"{self.config.api_base}/chat/completions"

    def auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.config.api_key}"}


@pytest.fixture
def acme():
    registry.register("acme", AcmeProvider)  # the one registry line
    yield
    del registry.REGISTRY["acme"]


def test_a_new_llm_provider_runs_on_loopback(acme, wire_stub):
    built = registry.build_provider(Target("a", "acme", {
        "base_url": f"{wire_stub.base_url}/v1", "api_key": KEY, "model": "acme-large",
        "max_output_tokens": 32}, where="targets.yaml:2"))
    built.check()

    async def run():
        try:
            return await built.invoke(Request(eval_id="c1", question="What is 2 + 3?"))
        finally:
            await built.aclose()
    assert asyncio.run(run()).text == "The answer is 5."
    [seen] = wire_stub.completions()
    assert seen.path == "/v1/chat/completions" and seen.headers["authorization"] == f"Bearer {KEY}"
    assert (seen.body["model"], seen.body["max_tokens"]) == ("acme-large", 32)


def test_its_preflight_names_its_variables(acme, monkeypatch):
    for name in ("ACME_API_KEY", "ACME_MODEL", "ACME_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigError, match="ACME_BASE_URL, ACME_API_KEY, ACME_MODEL"):
        registry.build_provider(Target("a", "acme", {}, where="targets.yaml:2")).check()


def test_it_is_in_the_schema_the_docs_table_and_the_secrets(acme, monkeypatch):
    from agentv.providers import secrets
    from agentv.tasks.load.redact import register, secret_values
    from agentv.tasks.plan.catalogue import provider_table
    from agentv.tasks.plan.schema import targets_schema
    assert registry.facts("acme").secret_env == ("ACME_API_KEY",)
    assert ("| `acme` | LLM | Acme's chat completions (OpenAI's wire format) over agentv's own "
            "client. | `ACME_API_KEY` |") in provider_table()
    entry = targets_schema()["properties"]["targets"]["items"]
    [branch] = [b["then"] for b in entry["allOf"]
                if b.get("if", {}).get("properties", {}).get("provider", {}).get("const")
                == "acme"]
    assert {"base_url", "apiKey", "reasoning_effort"} <= set(branch["properties"])
    monkeypatch.setenv("ACME_API_KEY", KEY)
    secrets.clear()
    try:
        register(secret_values([Target("a", "acme", {})]))
        assert secrets.scrub(f"key {KEY}") == "key ***"
    finally:
        secrets.clear()
