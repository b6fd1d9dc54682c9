"""``openai`` and ``azure``: the chat-completions wire format over agentv's own client.

    openai: POST {base_url or https://api.openai.com/v1}/chat/completions
            Authorization: Bearer <api_key>
    azure:  POST {endpoint}/openai/deployments/{model}/chat/completions?api-version={version}
            api-key: <api_key>

Request: ``model``, ``messages`` (system/user/assistant turns as they are), temperature,
max_tokens, top_p, stop, seed, presence/frequency_penalty, reasoning_effort,
``response_format`` (judge requests). Reply: ``choices[0].message.content``,
``finish_reason``, ``usage.prompt_tokens/completion_tokens`` (+
``prompt_tokens_details.cached_tokens``); ``tool_calls`` are listed in ``raw["tool_calls"]``.
Everything else (session, timeout, errors, cost, cache key) is ``providers.llm.wire``.
Any other model or route still goes through ``provider: litellm`` (``model: openai/gpt-4o``).
"""
from __future__ import annotations

from typing import Any

from providers.llm.litellm_route import AzureProvider, OpenAIProvider
from providers.llm.prices import TokenCounts
from providers.llm.wire import Parsed, WireProvider

DEFAULT_BASE = "https://api.openai.com/v1"
_NOT_IN_BODY = {"api_base", "api_version", "extra_headers", "model"}


class ChatCompletionsWire(WireProvider):
    def body(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"model": self.model_name,
                **{k: v for k, v in params.items() if k not in _NOT_IN_BODY}}

    def parse(self, data: Any) -> Parsed:
        choice = data["choices"][0]
        usage = data.get("usage") or {}
        details = usage.get("prompt_tokens_details") or {}
        calls = [{"id": c.get("id"), "name": c["function"].get("name"),
                  "arguments": c["function"].get("arguments")}
                 for c in choice["message"].get("tool_calls") or []]
        return Parsed(text=choice["message"].get("content") or "",
                      tokens=TokenCounts(usage.get("prompt_tokens"),
                                         usage.get("completion_tokens"),
                                         cache_read=details.get("cached_tokens") or 0),
                      finish_reason=choice.get("finish_reason"), reply_id=data.get("id"),
                      model=data.get("model"), extra={"tool_calls": calls} if calls else {})


class OpenAIHTTPProvider(ChatCompletionsWire, OpenAIProvider):
    """OpenAI (or any OpenAI-compatible server via base_url) chat completions over agentv's
    own aiohttp client: api_key (OPENAI_API_KEY), model, base_url."""

    price_prefix = "openai/"

    def url(self) -> str:
        return f"{(self.config.api_base or DEFAULT_BASE).rstrip('/')}/chat/completions"

    def auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.config.api_key or self.placeholder_key}"}


class AzureHTTPProvider(ChatCompletionsWire, AzureProvider):
    """Azure OpenAI chat completions over agentv's own aiohttp client: endpoint
    (AZURE_OPENAI_ENDPOINT), api_key (AZURE_OPENAI_API_KEY), model = the deployment
    (AZURE_DEPLOYMENT_NAME), version (AZURE_OPENAI_API_VERSION)."""

    price_prefix = "azure/"

    def url(self) -> str:
        c = self.config
        endpoint = (c.api_base or "").rstrip("/").removesuffix("/openai")
        return (f"{endpoint}/openai/deployments/{self.model_name}/chat/completions"
                f"?api-version={c.api_version}")

    def auth_headers(self) -> dict[str, str]:
        return {"api-key": self.config.api_key or ""}
