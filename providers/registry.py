"""Provider kinds → implementing class, imported lazily (litellm only when used)."""
from __future__ import annotations

from providers.base import BaseProvider, ConfigError, Target
from providers.lazyload import load_symbol

# kind -> "module:Class". Aliases point at the same class.
PROVIDERS: dict[str, str] = {
    "mock": "providers.mock:MockProvider",
    "azure": "providers.llm:AzureProvider",
    "azure-openai": "providers.llm:AzureProvider",
    "anthropic": "providers.llm:AnthropicProvider",
    "gemini": "providers.llm:GeminiProvider",
    "google": "providers.llm:GeminiProvider",
    "openai": "providers.openai_http:OpenAIHTTPProvider",
    "litellm": "providers.llm:LiteLLMProvider",
    "cli": "providers.cli:CliProvider",
    "codex": "providers.codex:CodexProvider",
    "vscode": "providers.vscode:VSCodeProvider",
    "vscode-copilot": "providers.vscode:VSCodeProvider",
    "vscode-insiders": "providers.vscode:VSCodeProvider",
}


def known_kinds() -> list[str]:
    return sorted(PROVIDERS)


def provider_class(kind: str, where: str = "") -> type[BaseProvider]:
    spec = PROVIDERS.get(kind)
    if spec is None:
        raise ConfigError(f"unknown provider '{kind}' (known: {', '.join(known_kinds())})",
                          where, "provider")
    try:
        return load_symbol(spec)
    except (ImportError, AttributeError):
        raise ConfigError(f"provider '{kind}' is not available yet", where, "provider") from None


def build_provider(target: Target) -> BaseProvider:
    return provider_class(target.provider, target.where)(target)
