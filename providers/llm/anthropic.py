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

Extended thinking (``reasoning_effort`` minimal/low/medium/high → a budget of 1024, 1024,
2048 or 4096 tokens): the API counts thinking inside ``max_tokens`` and wants the budget
below it, so ``max_output_tokens`` stays the answer's room and the budget is added on top
(up to the model's output limit; a budget that still does not fit is lowered, or thinking
left off when not even 1024 tokens fit). Thinking takes no temperature and a top_p of 0.95–1
only. Claude models from 4.1 on take temperature or top_p, not both (top_p is left out).
seed and presence/frequency_penalty have no Messages API field. What is left out is logged
once per target.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agentv.providers.llm.litellm_route import AnthropicProvider
from agentv.providers.llm.prices import TokenCounts, max_output_tokens
from agentv.providers.llm.wire import (
    FINISH,
    REASONING_BUDGET,
    Parsed,
    WireProvider,
    merged_turns,
    stop_list,
)

DEFAULT_BASE = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096
MIN_THINKING_BUDGET = 1024
_NOT_ON_THIS_API = ("seed", "presence_penalty", "frequency_penalty")
_ONE_SAMPLER = re.compile(r"claude-(?:opus|sonnet|haiku)-(?:4-[1-9]|[5-9])(?:\D|$)")


def _blocks(texts: list[str]) -> list[dict[str, str]]:
    return [{"type": "text", "text": t} for t in texts]


@dataclass(frozen=True)
class MessagesShape:
    """What one target sends besides the chat: decided once, the settings being fixed."""

    max_tokens: int
    thinking: dict[str, Any] | None = None
    drop: dict[str, str] = field(default_factory=dict)  # setting -> why it is not sent


def messages_shape(model: str, params: dict[str, Any], limit: int | None) -> MessagesShape:
    """``limit``: the model's output limit from the price map, if known."""
    drop = {p: "the Messages API has no such field" for p in _NOT_ON_THIS_API
            if params.get(p) is not None}
    if _ONE_SAMPLER.search(model) and params.get("temperature") is not None \
            and params.get("top_p") is not None:
        drop["top_p"] = f"{model} takes temperature or top_p, not both"
    asked = params.get("max_tokens")
    plain = asked or limit or DEFAULT_MAX_TOKENS
    effort = params.get("reasoning_effort")
    if effort is None or effort == "none":
        return MessagesShape(plain, None, drop)
    if effort not in REASONING_BUDGET:
        drop["reasoning_effort"] = f"{effort!r} is not one of {', '.join(REASONING_BUDGET)}"
        return MessagesShape(plain, None, drop)
    budget = max(MIN_THINKING_BUDGET, REASONING_BUDGET[effort])
    total = limit if limit and not asked else (asked or DEFAULT_MAX_TOKENS) + budget
    if limit:
        total = min(total, limit)  # the answer's room plus the budget, within the model's
    budget = min(budget, total - 1)
    if budget < MIN_THINKING_BUDGET:
        drop["reasoning_effort"] = (f"max_tokens {total} leaves no room for the smallest "
                                    f"thinking budget ({MIN_THINKING_BUDGET})")
        return MessagesShape(plain, None, drop)
    if params.get("temperature") is not None:
        drop["temperature"] = "extended thinking takes no temperature"
    if params.get("top_p") is not None and params["top_p"] < 0.95:
        drop["top_p"] = "extended thinking takes a top_p of 0.95–1 only"
    return MessagesShape(total, {"type": "enabled", "budget_tokens": budget}, drop)


class AnthropicHTTPProvider(WireProvider, AnthropicProvider):
    """Anthropic Messages API over agentv's own aiohttp client: api_key (ANTHROPIC_API_KEY),
    model, optional base_url."""

    price_prefix = "anthropic/"
    _shape: MessagesShape | None = None

    def shape(self, params: dict[str, Any]) -> MessagesShape:
        if self._shape is None:
            limit = max_output_tokens([f"anthropic/{self.model_name}", self.model_name])
            self._shape = messages_shape(self.model_name, params, limit)
        return self._shape

    def url(self) -> str:
        base = self.base(DEFAULT_BASE)
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
        shape = self.shape(params)
        body: dict[str, Any] = {"model": self.model_name, "messages": messages,
                                "max_tokens": shape.max_tokens}
        if system:
            body["system"] = _blocks(system)
        for name, why in shape.drop.items():
            self.drop(name, why)
        for name in ("temperature", "top_p"):
            if params.get(name) is not None and name not in shape.drop:
                body[name] = params[name]
        stop = stop_list(params.get("stop"))
        if stop:
            body["stop_sequences"] = stop
        if shape.thinking:
            body["thinking"] = shape.thinking
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
