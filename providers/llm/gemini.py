"""``gemini`` / ``google``: generateContent over agentv's own client (no litellm).

    POST {base_url or https://generativelanguage.googleapis.com/v1beta}/models/{model}:generateContent
    x-goog-api-key: <api_key>          (a header, never ``?key=`` in the URL)

Request: ``contents`` (user/model turns of ``parts``, consecutive turns of one role
merged), ``system_instruction`` (the chat's system turns), ``generationConfig``
(temperature, maxOutputTokens, topP, stopSequences, seed, presencePenalty,
frequencyPenalty, thinkingConfig from reasoning_effort). Reply: the first candidate's
text parts joined (thought parts skipped), ``finishReason`` mapped to OpenAI's finish
reasons (SAFETY, RECITATION, … → content_filter; a prompt blocked by ``promptFeedback``
is an empty content_filter reply, as through litellm), ``usageMetadata``:
promptTokenCount, candidatesTokenCount + thoughtsTokenCount, cachedContentTokenCount;
``functionCall`` parts are listed in ``raw["tool_calls"]``.

Thinking (``reasoning_effort``): Gemini 2.5 models take a ``thinkingBudget`` (128, 1024, 2048
or 4096 tokens for minimal/low/medium/high; thinking tokens are output tokens, so
``max_output_tokens`` stays the answer's room and the budget is added to
``maxOutputTokens``); Gemini 3 models a ``thinkingLevel`` (gemini-3-pro: low or high);
Gemini 1.x/2.0 models and Gemma do not think: the setting is left out, logged once per
target.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agentv.providers.llm.litellm_route import GeminiProvider
from agentv.providers.llm.prices import TokenCounts
from agentv.providers.llm.wire import (
    FINISH,
    REASONING_BUDGET,
    Parsed,
    WireProvider,
    merged_turns,
    stop_list,
)

DEFAULT_BASE = "https://generativelanguage.googleapis.com/v1beta"
_CONFIG = {"temperature": "temperature", "max_tokens": "maxOutputTokens", "top_p": "topP",
           "seed": "seed", "presence_penalty": "presencePenalty",
           "frequency_penalty": "frequencyPenalty"}


_NO_THINKING = re.compile(r"^(?:gemini-(?:1\.|2\.0)|gemma)")
_LEVELS_PRO3 = {"minimal": "low", "low": "low", "medium": "high", "high": "high"}


def _parts(texts: list[str]) -> list[dict[str, str]]:
    return [{"text": t} for t in texts]


@dataclass(frozen=True)
class ThinkingShape:
    """A target's thinkingConfig and output limit: decided once, the settings being fixed."""

    config: dict[str, Any] | None = None
    max_tokens: int | None = None
    drop: dict[str, str] = field(default_factory=dict)


def thinking_shape(model: str, params: dict[str, Any]) -> ThinkingShape:
    effort, asked = params.get("reasoning_effort"), params.get("max_tokens")
    if effort is None or effort == "none":
        return ThinkingShape(None, asked)
    name = model.rsplit("/", 1)[-1].lower()
    if effort not in REASONING_BUDGET:
        why = f"{effort!r} is not one of {', '.join(REASONING_BUDGET)}"
    elif _NO_THINKING.match(name):
        why = f"{name} does not think"
    elif name.startswith("gemini-3"):
        level = _LEVELS_PRO3[effort] if name.startswith("gemini-3-pro") else effort
        return ThinkingShape({"thinkingLevel": level}, asked)
    else:
        budget = REASONING_BUDGET[effort]
        return ThinkingShape({"thinkingBudget": budget}, asked + budget if asked else None)
    return ThinkingShape(None, asked, {"reasoning_effort": why})


class GeminiHTTPProvider(WireProvider, GeminiProvider):
    """Gemini generateContent over agentv's own aiohttp client: api_key (GOOGLE_API_KEY),
    model (GOOGLE_GEMINI_MODEL, default gemini-2.5-flash), optional base_url."""

    price_prefix = "gemini/"
    _thinking: ThinkingShape | None = None

    def thinking(self, params: dict[str, Any]) -> ThinkingShape:
        if self._thinking is None:
            self._thinking = thinking_shape(self.model_name, params)
        return self._thinking

    def url(self) -> str:
        base = self.base(DEFAULT_BASE)
        return f"{base}/models/{self.model_name}:generateContent"

    def auth_headers(self) -> dict[str, str]:
        return {"x-goog-api-key": self.config.api_key or ""}

    def body(self, params: dict[str, Any]) -> dict[str, Any]:
        system, turns = merged_turns(params["messages"])
        body: dict[str, Any] = {"contents": [
            {"role": "model" if role == "assistant" else "user", "parts": _parts(texts)}
            for role, texts in turns]}
        if system:
            body["system_instruction"] = {"parts": _parts(system)}
        config = {wire: params[name] for name, wire in _CONFIG.items()
                  if params.get(name) is not None}
        stop = stop_list(params.get("stop"))
        if stop:
            config["stopSequences"] = stop
        thinking = self.thinking(params)
        for name, why in thinking.drop.items():
            self.drop(name, why)
        if thinking.config:
            config["thinkingConfig"] = thinking.config
            if thinking.max_tokens:
                config["maxOutputTokens"] = thinking.max_tokens
        if config:
            body["generationConfig"] = config
        return body

    def parse(self, data: Any) -> Parsed:
        usage = data.get("usageMetadata") or {}
        candidates = data.get("candidates")
        if not candidates:
            blocked = (data.get("promptFeedback") or {}).get("blockReason")
            if not blocked and "usageMetadata" not in data:
                raise KeyError("candidates")  # neither a reply nor a block: malformed
            text, finish, calls = "", "content_filter", []
        else:
            first = candidates[0]
            parts = (first.get("content") or {}).get("parts") or []
            text = "".join(p.get("text", "") for p in parts if not p.get("thought"))
            calls = [{"id": None, "name": p["functionCall"].get("name"),
                      "arguments": p["functionCall"].get("args")}
                     for p in parts if "functionCall" in p]
            reason = first.get("finishReason")
            finish = FINISH.get(reason, reason)
        out = (usage.get("candidatesTokenCount") or 0) + (usage.get("thoughtsTokenCount") or 0)
        return Parsed(text=text,
                      tokens=TokenCounts(usage.get("promptTokenCount"),
                                         out if usage else None,
                                         cache_read=usage.get("cachedContentTokenCount") or 0),
                      finish_reason=finish, reply_id=data.get("responseId"),
                      model=data.get("modelVersion"),
                      extra={"tool_calls": calls} if calls else {})
