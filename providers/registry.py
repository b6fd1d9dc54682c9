"""Provider kinds → the class that implements them, imported lazily (by name, on first use).

Each class declares what it is in ``facts`` (``providers.facts``: family llm/agent/command/mock,
settings model, secret environment variables, batching, workers, program); ``validate``, the
plan, the request record, the retry policy, the JSON Schema (``agentv schema``) and the
provider table in docs/targets.md (``tasks.plan.catalogue``) read them here. openai, azure,
anthropic and gemini are agentv's own wire clients (``providers.llm.*``); litellm is imported
only for ``provider: litellm`` targets, and nothing here imports it or Prefect.

Adding a provider: one module (the class, its facts and its ``ProviderSettings`` subclass; the
class docstring's first paragraph is its row in the docs table) and one line in ``REGISTRY``,
``"kind": "module:Class"`` (or ``register(kind, cls)`` from outside the project). A line may
still be the older pair ``("module:Class", "module:Settings")``: the second names the
settings model instead of the class's facts.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from agentv.providers.base import BaseProvider, ConfigError, Target
from agentv.providers.facts import ProviderFacts
from agentv.providers.lazyload import load_symbol

Spec = Any  # "module:Class", the class itself, or ("module:Class", "module:Settings")

_LLM, _AGENTS = "agentv.providers.llm", "agentv.providers.agents"
# kind -> "module:ProviderClass"; aliases name the same class.
REGISTRY: dict[str, Spec] = {
    "mock": "agentv.providers.mock:MockProvider",
    "azure": f"{_LLM}.openai:AzureHTTPProvider",
    "azure-openai": f"{_LLM}.openai:AzureHTTPProvider",
    "anthropic": f"{_LLM}.anthropic:AnthropicHTTPProvider",
    "gemini": f"{_LLM}.gemini:GeminiHTTPProvider",
    "google": f"{_LLM}.gemini:GeminiHTTPProvider",
    "openai": f"{_LLM}.openai:OpenAIHTTPProvider",
    "litellm": f"{_LLM}.litellm_route:LiteLLMProvider",
    "cli": f"{_AGENTS}.cli:CliProvider",
    "codex": f"{_AGENTS}.codex:CodexProvider",
    "codex-cli": f"{_AGENTS}.codex:CodexProvider",
    "claude": f"{_AGENTS}.claude:ClaudeProvider",
    "claude-cli": f"{_AGENTS}.claude:ClaudeProvider",
    "claude-code": f"{_AGENTS}.claude:ClaudeProvider",  # AgentV 2.x's name, still accepted
    "copilot-cli": f"{_AGENTS}.copilot:CopilotProvider",
    "copilot": f"{_AGENTS}.copilot:CopilotProvider",
    "pi-coding-agent": f"{_AGENTS}.pi:PiProvider",
    "pi": f"{_AGENTS}.pi:PiProvider",
    "pi-cli": f"{_AGENTS}.pi:PiProvider",
    "vscode": f"{_AGENTS}.vscode:VSCodeProvider",
    "vscode-copilot": f"{_AGENTS}.vscode:VSCodeProvider",
    "vscode-insiders": f"{_AGENTS}.vscode:VSCodeProvider",
}


def register(kind: str, provider: str | type[BaseProvider], settings: Any = None) -> None:
    """Make ``provider: kind`` build ``provider`` (a class or ``"module:Class"``);
    ``settings`` names its settings model when its facts do not."""
    REGISTRY[kind] = provider if settings is None else (provider, settings)


def _load(spec: Spec) -> Any:
    return spec if isinstance(spec, type) else load_symbol(spec)


def _parts(kind: str, where: str) -> tuple[Spec, Spec | None]:
    spec = REGISTRY.get(kind)
    if spec is None:
        raise ConfigError(f"unknown provider '{kind}' (known: {', '.join(known_kinds())})",
                          where, "provider")
    return (spec[0], spec[1]) if isinstance(spec, tuple) else (spec, None)


def known_kinds() -> list[str]:
    return sorted(REGISTRY)


def provider_class(kind: str, where: str = "") -> type[BaseProvider]:
    spec, _ = _parts(kind, where)
    try:
        return _load(spec)
    except (ImportError, AttributeError):
        raise ConfigError(f"provider '{kind}' is not available yet", where, "provider") from None


_FILLED: dict[str, tuple[Spec, ProviderFacts, ProviderFacts]] = {}  # kind -> (spec, its, filled)


def facts(kind: str, where: str = "") -> ProviderFacts:
    """The provider's facts with its settings model filled in (ConfigError when unknown);
    made once per kind (again when the kind is registered anew or its class's facts change)."""
    cls = provider_class(kind, where)
    _, settings = _parts(kind, where)
    found = cls.facts
    known = _FILLED.get(kind)
    if known is not None and known[0] is REGISTRY[kind] and known[1] is found:
        return known[2]
    filled = replace(found, settings=_load(settings) if settings is not None
                     else found.settings_model())
    _FILLED[kind] = (REGISTRY[kind], found, filled)
    return filled


def settings_model(kind: str, where: str = "") -> Any:
    """The typed settings (a ``ProviderSettings`` subclass) of a provider kind."""
    return facts(kind, where).settings


def build_provider(target: Target) -> BaseProvider:
    return provider_class(target.provider, target.where)(target)
