"""Provider kinds → implementing class and settings model, imported lazily. openai, azure,
anthropic and gemini are agentv's own wire clients (providers.*_http); litellm is imported
only for ``provider: litellm`` targets. Adding a provider: one file (provider + its
``ProviderSettings`` subclass; the provider's docstring's first paragraph is its row in the
docs table) and one line in ``REGISTRY`` (or ``register(kind, provider, settings)`` from
outside the project). ``validate``, the JSON Schema (``agentv schema``) and README.md's
provider table (``tasks.plan.catalogue``) read this registry."""
from __future__ import annotations

from typing import Any

from providers.base import BaseProvider, ConfigError, Target
from providers.base_settings import ProviderSettings
from providers.lazyload import load_symbol

Spec = Any  # "module:Class", or the class itself when registered at run time

_LLM = "providers.llm.settings"
# kind -> ("module:ProviderClass", "module:SettingsModel"). Aliases share both.
REGISTRY: dict[str, tuple[Spec, Spec]] = {
    "mock": ("providers.mock:MockProvider", "providers.mock_settings:MockSettings"),
    "azure": ("providers.llm.openai:AzureHTTPProvider", f"{_LLM}:AzureSettings"),
    "azure-openai": ("providers.llm.openai:AzureHTTPProvider", f"{_LLM}:AzureSettings"),
    "anthropic": ("providers.llm.anthropic:AnthropicHTTPProvider", f"{_LLM}:AnthropicSettings"),
    "gemini": ("providers.llm.gemini:GeminiHTTPProvider", f"{_LLM}:GeminiSettings"),
    "google": ("providers.llm.gemini:GeminiHTTPProvider", f"{_LLM}:GeminiSettings"),
    "openai": ("providers.llm.openai:OpenAIHTTPProvider", f"{_LLM}:OpenAISettings"),
    "litellm": ("providers.llm.litellm_route:LiteLLMProvider", f"{_LLM}:LiteLLMSettings"),
    "cli": ("providers.agents.cli:CliProvider", "providers.agents.cli_settings:CliSettings"),
    "codex": ("providers.agents.codex:CodexProvider",
              "providers.agents.codex_settings:CodexSettings"),
    "vscode": ("providers.agents.vscode:VSCodeProvider",
               "providers.agents.vscode_settings:VSCodeSettings"),
    "vscode-copilot": ("providers.agents.vscode:VSCodeProvider",
                       "providers.agents.vscode_settings:VSCodeSettings"),
    "vscode-insiders": ("providers.agents.vscode:VSCodeProvider",
                        "providers.agents.vscode_settings:VSCodeSettings"),
}


def register(kind: str, provider: str | type[BaseProvider],
             settings: str | type[ProviderSettings]) -> None:
    """Make ``provider: kind`` build ``provider`` with ``settings`` (classes or
    ``"module:Class"`` strings)."""
    REGISTRY[kind] = (provider, settings)


def _load(spec: Spec) -> Any:
    return spec if isinstance(spec, type) else load_symbol(spec)


def known_kinds() -> list[str]:
    return sorted(REGISTRY)


def _unknown(kind: str, where: str) -> ConfigError:
    return ConfigError(f"unknown provider '{kind}' (known: {', '.join(known_kinds())})",
                       where, "provider")


def provider_class(kind: str, where: str = "") -> type[BaseProvider]:
    spec = REGISTRY.get(kind)
    if spec is None:
        raise _unknown(kind, where)
    try:
        return _load(spec[0])
    except (ImportError, AttributeError):
        raise ConfigError(f"provider '{kind}' is not available yet", where, "provider") from None


def settings_model(kind: str, where: str = "") -> type[ProviderSettings]:
    """The typed settings of a provider kind (no heavy imports)."""
    spec = REGISTRY.get(kind)
    if spec is None:
        raise _unknown(kind, where)
    return _load(spec[1])


def build_provider(target: Target) -> BaseProvider:
    return provider_class(target.provider, target.where)(target)
