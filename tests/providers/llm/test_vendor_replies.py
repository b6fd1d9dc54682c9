"""The vendors' own replies, read by agentv's own wire clients exactly as litellm reads them.

Each body below is a vendor's: recorded from the live API by the vendor's SDK test suite, or
built from the blocks its tests use. The loopback stub (tests/stub_llm.py) sends it as it
is; the reply mapping (text, usage, finish reason, model) is compared with litellm's reading
of the same bytes (``provider: litellm``), the reference the wire contract tests use too.
"""
from __future__ import annotations

import asyncio

import pytest

from agentv.providers.base import Request, Target
from agentv.providers.registry import build_provider

KEY = "sk-replies-SECRET-0123456789"

# openai/openai-python tests/lib/chat/test_completions.py (test_parse_nothing): a reply
# recorded from the live API (gpt-4o-2024-08-06).
OPENAI_RECORDED = {
    "id": "chatcmpl-ABfvaueLEMLNYbT8YzpJxsmiQ6HSY", "object": "chat.completion",
    "created": 1727346142, "model": "gpt-4o-2024-08-06",
    "choices": [{"index": 0, "message": {
        "role": "assistant",
        "content": "I'm unable to provide real-time weather updates. To get the current weather "
                   "in San Francisco, I recommend checking a reliable weather website or app "
                   "like the Weather Channel or a local news station.",
        "refusal": None}, "logprobs": None, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 14, "completion_tokens": 37, "total_tokens": 51,
              "completion_tokens_details": {"reasoning_tokens": 0}},
    "system_fingerprint": "fp_b40fb1c6fb"}

# anthropics/anthropic-sdk-python tests/lib/_parse/__inline_snapshot__/test_messages/
# TestSyncParse/bd7029d5-….json: a reply recorded from the live API (claude-sonnet-4-5).
ANTHROPIC_RECORDED = {
    "model": "claude-sonnet-4-5-20250929", "id": "msg_01T4jd6NyD9xGGtTPDC4ogy5",
    "type": "message", "role": "assistant",
    "content": [{"type": "text", "text": '{"items":[{"product_name":"Green Tea","price":5.50,'
                 '"quantity":2},{"product_name":"Coffee","price":3.00,"quantity":1}],'
                 '"total":14.0}'}],
    "stop_reason": "end_turn", "stop_sequence": None,
    "usage": {"input_tokens": 406, "cache_creation_input_tokens": 0,
              "cache_read_input_tokens": 0,
              "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
              "output_tokens": 50, "service_tier": "standard",
              "inference_geo": "not_available"}}

# The same recorded reply with extended thinking: the thinking, redacted_thinking and text
# blocks of anthropics/anthropic-sdk-python tests/lib/test_thinking.py.
ANTHROPIC_THINKING = {
    **ANTHROPIC_RECORDED,
    "content": [{"type": "thinking", "thinking": "thinking…", "signature": "sig_abc"},
                {"type": "redacted_thinking", "data": "opaque"},
                {"type": "text", "text": "answer"}]}

# googleapis/python-genai google/genai/tests/models/test_include_thoughts_filtering.py: a
# candidate with thought parts before the answer (its text parts, in the REST spelling).
GEMINI_THOUGHTS = {
    "candidates": [{"content": {"parts": [{"text": "thinking step 1", "thought": True},
                                          {"text": "thinking step 2", "thought": True},
                                          {"text": "final"}],
                                "role": "model"},
                    "finishReason": "STOP"}],
    "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 3,
                      "thoughtsTokenCount": 40, "totalTokenCount": 55},
    "modelVersion": "gemini-2.5-flash"}

CASES = {  # name: (wire, model, body, expected text, finish reason, tokens in/out)
    "openai": ("openai", "gpt-4o-2024-08-06", OPENAI_RECORDED,
               OPENAI_RECORDED["choices"][0]["message"]["content"], "stop", (14, 37)),
    "anthropic": ("anthropic", "claude-sonnet-4-5", ANTHROPIC_RECORDED,
                  ANTHROPIC_RECORDED["content"][0]["text"], "stop", (406, 50)),
    "anthropic-thinking": ("anthropic", "claude-sonnet-4-5", ANTHROPIC_THINKING, "answer",
                           "stop", (406, 50)),
    "gemini-thoughts": ("gemini", "gemini-2.5-flash", GEMINI_THOUGHTS, "final", "stop",
                        (12, 43)),
}


def own(wire: str, model: str, base: str):
    where = {"openai": {"base_url": f"{base}/v1"}, "anthropic": {"base_url": base},
             "gemini": {"base_url": base}}[wire]
    return build_provider(Target(f"t-{wire}", wire, {"api_key": KEY, "model": model, **where},
                                 where="targets.yaml:2"))


def via_litellm(wire: str, model: str, base: str):
    api_base = f"{base}/v1" if wire == "openai" else base
    return build_provider(Target(f"t-{wire}", "litellm",
                                 {"api_key": KEY, "model": f"{wire}/{model}",
                                  "api_base": api_base}, where="targets.yaml:9"))


def answer(built):
    async def run():
        try:
            return await built.invoke(Request(eval_id="c1", question="What's the weather?"))
        finally:
            await built.aclose()
    built.check()
    return asyncio.run(run())


@pytest.mark.slow  # litellm is the reference: its import alone costs seconds
@pytest.mark.parametrize("case", list(CASES))
def test_a_vendors_own_reply_is_read_like_litellm_reads_it(case, wire_stub):
    wire, model, body, text, finish, tokens = CASES[case]
    wire_stub.configure(reply_body=body)
    mine = answer(own(wire, model, wire_stub.base_url))
    assert mine.text == text and mine.raw["finish_reason"] == finish
    assert (mine.usage.input_tokens, mine.usage.output_tokens) == tokens
    assert mine.raw["model"] == body.get("model", body.get("modelVersion"))
    assert mine.usage.cost_usd is not None and mine.usage.cost_usd > 0
    reference = answer(via_litellm(wire, model, wire_stub.base_url))
    assert (reference.text, reference.raw["finish_reason"]) == (text, finish)
    assert (reference.usage.input_tokens, reference.usage.output_tokens) == tokens
    assert mine.usage.cost_usd == pytest.approx(reference.usage.cost_usd, rel=1e-6)
