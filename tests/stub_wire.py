"""Wire-exact replies of ``tests/stub_llm.py`` beyond plain answers, and its latency model.

Script actions (``stub.configure(script=[...])``), each answered the way the real API
does on that wire:
  "context_length"  400: the prompt is longer than the context window
                    (openai/azure ``code: context_length_exceeded``; anthropic
                    ``invalid_request_error`` "prompt is too long"; gemini
                    ``INVALID_ARGUMENT`` "input token count … exceeds the maximum")
  "content_filter"  azure: 400 ``code: content_filter`` (prompt filtered); openai: 200 with
                    ``finish_reason: content_filter`` and no content; anthropic: 200 with
                    ``stop_reason: refusal``; gemini: 200 with ``promptFeedback.blockReason``
                    and no candidates
  "tool_use"        200 with a tool call next to the text (openai ``tool_calls``,
                    anthropic ``tool_use`` block, gemini ``functionCall`` part)
  "cached"          200 whose usage reports cached prompt tokens

Latency: ``latency_ms`` is the median; with ``latency_sigma`` > 0 each answer waits a
seeded lognormal sample (``sigma_for(p50, p99)`` fits the two quantiles).
"""
from __future__ import annotations

import math
import random
from typing import Any

ACTIONS = ("context_length", "content_filter", "tool_use", "cached")
Z99 = 2.3263478740408408  # the standard normal's 99th percentile
TOOL = {"name": "lookup", "args": {"q": "2 + 3"}}


def sigma_for(p50_ms: float, p99_ms: float) -> float:
    """The lognormal sigma whose median is p50 and 99th percentile p99."""
    return math.log(p99_ms / p50_ms) / Z99


def sample_ms(rng: random.Random, median_ms: float, sigma: float) -> float:
    return median_ms * math.exp(sigma * rng.gauss(0.0, 1.0)) if sigma > 0 else median_ms


def fault_reply(action: str, wire: str, ok: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """(status, body) of a scripted ``action`` on ``wire``; ``ok`` is the normal reply."""
    if action == "context_length":
        return 400, _context_error(wire)
    if action == "content_filter":
        return _filtered(wire, ok)
    if action == "tool_use":
        return 200, _with_tool_call(wire, ok)
    return 200, _with_cached_tokens(wire, ok)


def _context_error(wire: str) -> dict[str, Any]:
    if wire == "anthropic":
        return {"type": "error", "error": {"type": "invalid_request_error",
                                           "message": "prompt is too long: 210000 tokens > "
                                                      "200000 maximum"}}
    if wire == "gemini":
        return {"error": {"code": 400, "status": "INVALID_ARGUMENT",
                          "message": "The input token count (1200000) exceeds the maximum "
                                     "number of tokens allowed (1048576)."}}
    return {"error": {"message": "This model's maximum context length is 128000 tokens. "
                                 "However, your messages resulted in 130000 tokens.",
                      "type": "invalid_request_error", "param": "messages",
                      "code": "context_length_exceeded"}}


def _filtered(wire: str, ok: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    if wire == "azure":
        return 400, {"error": {"message": "The response was filtered due to the prompt "
                                          "triggering Azure OpenAI's content management "
                                          "policy.", "type": None, "param": "prompt",
                               "code": "content_filter", "status": 400,
                               "innererror": {"code": "ResponsibleAIPolicyViolation"}}}
    if wire == "anthropic":
        return 200, {**ok, "content": [], "stop_reason": "refusal"}
    if wire == "gemini":
        return 200, {"promptFeedback": {"blockReason": "SAFETY"},
                     "usageMetadata": {"promptTokenCount": 12, "totalTokenCount": 12},
                     "modelVersion": ok.get("modelVersion")}
    choice = {"index": 0, "finish_reason": "content_filter",
              "message": {"role": "assistant", "content": None}}
    return 200, {**ok, "choices": [choice]}


def _with_tool_call(wire: str, ok: dict[str, Any]) -> dict[str, Any]:
    if wire == "anthropic":
        block = {"type": "tool_use", "id": "toolu_01", "name": TOOL["name"],
                 "input": TOOL["args"]}
        return {**ok, "content": ok["content"] + [block], "stop_reason": "tool_use"}
    if wire == "gemini":
        cand = ok["candidates"][0]
        parts = cand["content"]["parts"] + [{"functionCall": TOOL}]
        return {**ok, "candidates": [{**cand, "content": {**cand["content"], "parts": parts}}]}
    choice = ok["choices"][0]
    call = {"id": "call_01", "type": "function",
            "function": {"name": TOOL["name"], "arguments": '{"q": "2 + 3"}'}}
    return {**ok, "choices": [{**choice, "finish_reason": "tool_calls",
                               "message": {**choice["message"], "tool_calls": [call]}}]}


def _with_cached_tokens(wire: str, ok: dict[str, Any]) -> dict[str, Any]:
    if wire == "anthropic":
        return {**ok, "usage": {**ok["usage"], "cache_read_input_tokens": 1000}}
    if wire == "gemini":
        meta = ok["usageMetadata"]
        return {**ok, "usageMetadata": {**meta, "promptTokenCount": meta["promptTokenCount"]
                                        + 1000, "cachedContentTokenCount": 1000}}
    usage = ok["usage"]
    return {**ok, "usage": {**usage, "prompt_tokens": usage["prompt_tokens"] + 1000,
                            "prompt_tokens_details": {"cached_tokens": 1000}}}
