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

Reasoning models (the o1/o3/o4 and gpt-5 families, by model or deployment name; not
``gpt-5-chat``) get ``max_completion_tokens`` instead of ``max_tokens`` and no sampling
settings: temperature, top_p, presence/frequency_penalty (gpt-5 also no ``stop``; gpt-5.1 and
later keep temperature and top_p with ``reasoning_effort: none``, as the API allows);
``o1-mini``/``o1-preview`` get the system turns as user turns. ``reasoning_effort`` is left
out for OpenAI's other models (not for a compatible server's: ``base_url``). What is left
out is logged once per target.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agentv.providers.llm.litellm_route import AzureProvider, OpenAIProvider
from agentv.providers.llm.prices import TokenCounts
from agentv.providers.llm.wire import Parsed, WireProvider

DEFAULT_BASE = "https://api.openai.com/v1"
_NOT_IN_BODY = {"api_base", "api_version", "extra_headers", "model"}
_O_SERIES = re.compile(r"^o\d+(?:-|$)")
_GPT5 = re.compile(r"^gpt-5(?:\.(\d+))?(?!-chat)(?:-|$)")
_NO_SYSTEM = ("o1-mini", "o1-preview")
_SAMPLING = ("temperature", "top_p", "presence_penalty", "frequency_penalty")


@dataclass(frozen=True)
class ChatRules:
    """How one target's chat-completions body differs from its settings."""

    rename: dict[str, str] = field(default_factory=dict)
    drop: dict[str, str] = field(default_factory=dict)  # setting -> why it is not sent
    system_as_user: bool = False


def chat_rules(model: str, params: dict[str, Any], openai_itself: bool) -> ChatRules:
    """The rules of ``model`` (the last path part of a model or deployment name)."""
    name = model.rsplit("/", 1)[-1].lower()
    gpt5 = _GPT5.match(name)
    if not (gpt5 or _O_SERIES.match(name)):
        if params.get("reasoning_effort") is not None and openai_itself:
            return ChatRules(drop={"reasoning_effort": f"{name} is not a reasoning model"})
        return ChatRules()
    unsupported = list(_SAMPLING)
    if gpt5:
        unsupported.append("stop")
        if params.get("reasoning_effort") == "none" and int(gpt5.group(1) or 0) >= 1:
            unsupported = [p for p in unsupported if p not in ("temperature", "top_p")]
    why = f"{name} is a reasoning model"
    return ChatRules(rename={"max_tokens": "max_completion_tokens"},
                     drop={p: why for p in unsupported if params.get(p) is not None},
                     system_as_user=name.startswith(_NO_SYSTEM))


class ChatCompletionsWire(WireProvider):
    _rules: ChatRules | None = None

    def openai_itself(self) -> bool:
        """The vendor's own API (so its model list is known), not a compatible server."""
        return False

    def rules(self, params: dict[str, Any]) -> ChatRules:
        """Decided once per target: the settings are the same on every call."""
        if self._rules is None:
            self._rules = chat_rules(self.model_name, params, self.openai_itself())
        return self._rules

    def body(self, params: dict[str, Any]) -> dict[str, Any]:
        rules = self.rules(params)
        body: dict[str, Any] = {"model": self.model_name}
        for name, value in params.items():
            if name in _NOT_IN_BODY:
                continue
            if name in rules.drop:
                self.drop(name, rules.drop[name])
                continue
            body[rules.rename.get(name, name)] = value
        if rules.system_as_user:
            body["messages"] = [{**m, "role": "user"} if m["role"] == "system" else m
                                for m in body["messages"]]
        return body

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

    def openai_itself(self) -> bool:
        return self.config.api_base is None

    def url(self) -> str:
        return f"{self.base(DEFAULT_BASE)}/chat/completions"

    def auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.config.api_key or self.placeholder_key}"}


class AzureHTTPProvider(ChatCompletionsWire, AzureProvider):
    """Azure OpenAI chat completions over agentv's own aiohttp client: endpoint
    (AZURE_OPENAI_ENDPOINT), api_key (AZURE_OPENAI_API_KEY), model = the deployment
    (AZURE_DEPLOYMENT_NAME), version (AZURE_OPENAI_API_VERSION)."""

    price_prefix = "azure/"

    def url(self) -> str:
        c = self.config
        endpoint = self.base("").removesuffix("/openai")
        return (f"{endpoint}/openai/deployments/{self.model_name}/chat/completions"
                f"?api-version={c.api_version}")

    def auth_headers(self) -> dict[str, str]:
        return {"api-key": self.config.api_key or ""}
