"""``anthropic``: the Messages API over agentv's own client (no litellm).

    POST {base_url or https://api.anthropic.com}/v1/messages
    x-api-key: <api_key>        anthropic-version: 2023-06-01

Request: ``model``, ``system`` (the chat's system turns as text blocks, a top-level
field), ``messages`` (user/assistant turns, consecutive turns of one role merged into one
message of text blocks; a chat opening with the assistant gets a "." user turn first, as
litellm sends), ``max_tokens`` (required: the setting, else the model's limit from the
price map, else 4096 — litellm's default), temperature, top_p, ``stop_sequences``,
``thinking`` (from reasoning_effort). Reply: the ``text`` blocks joined, ``stop_reason``
(mapped to OpenAI's finish reasons), ``usage.input_tokens`` (+ cache read/creation
tokens, counted as input like litellm does) and ``output_tokens``; ``tool_use`` blocks are
listed in ``raw["tool_calls"]``.
"""
from __future__ import annotations

from typing import Any

from providers.llm.litellm_route import AnthropicProvider
from providers.llm.prices import TokenCounts, max_output_tokens
from providers.llm.wire import FINISH, REASONING_BUDGET, Parsed, WireProvider, merged_turns, \
    stop_list

DEFAULT_BASE = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096


def _blocks(texts: list[str]) -> list[dict[str, str]]:
    return [{"type": "text", "text": t} for t in texts]


class AnthropicHTTPProvider(WireProvider, AnthropicProvider):
    """Anthropic Messages API over agentv's own aiohttp client: api_key (ANTHROPIC_API_KEY),
    model, optional base_url."""

    price_prefix = "anthropic/"

    def url(self) -> str:
        base = (self.config.api_base or DEFAULT_BASE).rstrip("/")
        if base.endswith("/v1/messages"):
            return base
        return f"{base}/messages" if base.endswith("/v1") else f"{base}/v1/messages"

    def auth_headers(self) -> dict[str, str]:
        return {"x-api-key": self.config.api_key or "", "anthropic-version": API_VERSION}

    def body(self, params: dict[str, Any]) -> dict[str, Any]:
        system, turns = merged_turns(params["messages"])
        messages = [{"role": role, "content": _blocks(texts)} for role, texts in turns]
        if not messages or messages[0]["role"] != "user":
            messages.insert(0, {"role": "user", "content": _blocks(["."])})
        limit = params.get("max_tokens") or max_output_tokens(
            [f"anthropic/{self.model_name}", self.model_name]) or DEFAULT_MAX_TOKENS
        body: dict[str, Any] = {"model": self.model_name, "messages": messages,
                                "max_tokens": limit}
        if system:
            body["system"] = _blocks(system)
        for name in ("temperature", "top_p"):
            if params.get(name) is not None:
                body[name] = params[name]
        stop = stop_list(params.get("stop"))
        if stop:
            body["stop_sequences"] = stop
        budget = REASONING_BUDGET.get(str(params.get("reasoning_effort")))
        if budget:
            body["thinking"] = {"type": "enabled", "budget_tokens": max(1024, budget)}
        return body

    def parse(self, data: Any) -> Parsed:
        blocks = data["content"]
        text = "".join(b["text"] for b in blocks if b.get("type") == "text")
        calls = [{"id": b.get("id"), "name": b.get("name"), "arguments": b.get("input")}
                 for b in blocks if b.get("type") == "tool_use"]
        usage = data.get("usage") or {}
        read = usage.get("cache_read_input_tokens") or 0
        write = usage.get("cache_creation_input_tokens") or 0
        tokens_in = usage.get("input_tokens")
        return Parsed(text=text,
                      tokens=TokenCounts(None if tokens_in is None else tokens_in + read + write,
                                         usage.get("output_tokens"), read, write),
                      finish_reason=FINISH.get(data.get("stop_reason"), data.get("stop_reason")),
                      reply_id=data.get("id"), model=data.get("model"),
                      extra={"tool_calls": calls} if calls else {})
