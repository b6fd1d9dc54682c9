"""What each vendor's models take, as agentv's own wire clients send it (``providers.llm.openai``,
``anthropic``, ``gemini``): every request is read back by the loopback stub speaking that wire
(tests/stub_llm.py), and each setting left out is logged once per target, not once per call.

The rules are the vendors' documented ones: OpenAI's reasoning models (o-series, gpt-5) take
``max_completion_tokens`` and no sampling settings; Anthropic's extended thinking needs its
budget (at least 1024) below ``max_tokens`` and takes no temperature and a top_p of 0.95–1;
Gemini 2.5 takes a ``thinkingBudget``, Gemini 3 a ``thinkingLevel``, Gemini 2.0 no thinking.
"""
from __future__ import annotations

import asyncio
import logging

import pytest

from agentv.providers.base import Request, Target
from agentv.providers.llm.anthropic import messages_shape
from agentv.providers.llm.openai import chat_rules
from agentv.providers.registry import build_provider

KEY = "sk-vendor-SECRET-0123456789"
SAMPLING = {"temperature": 0.2, "top_p": 0.9, "presence_penalty": 0.1, "frequency_penalty": 0.1}


def provider(kind: str, wire_stub, model: str, **settings):
    base = wire_stub.base_url
    where = {"openai": {"base_url": f"{base}/v1"}, "azure": {"endpoint": base},
             "anthropic": {"base_url": base}, "gemini": {"base_url": base}}[kind]
    built = build_provider(Target(f"t-{kind}", kind, {"api_key": KEY, "model": model, **where,
                                                       **settings}, where="targets.yaml:2"))
    built.check()
    return built


def bodies(built, wire_stub, calls: int = 2) -> list[dict]:
    """The bodies the stub received for ``calls`` calls of one target."""
    chat = [{"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "What is 2 + 3?"}]

    async def run():
        try:
            for _ in range(calls):
                response = await built.invoke(Request(eval_id="c1", question="What is 2 + 3?",
                                                      chat=chat))
                assert response.text == "The answer is 5."
        finally:
            await built.aclose()
    asyncio.run(run())
    return [r.body for r in wire_stub.completions()]


def dropped(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == "agentv.llm" and r.levelno == logging.WARNING]


# ------------------------------------------------------------------------------- OpenAI
@pytest.mark.parametrize("model", ["o1", "o3-mini", "o4-mini-2025-04-16", "gpt-5", "gpt-5-mini"])
def test_openai_reasoning_models_get_max_completion_tokens_and_no_sampling(model, wire_stub,
                                                                           caplog):
    caplog.set_level(logging.WARNING, "agentv.llm")
    built = provider("openai", wire_stub, model, max_output_tokens=64, stop=["END"], **SAMPLING)
    first, second = bodies(built, wire_stub)
    assert first == second and first["max_completion_tokens"] == 64
    assert not {"max_tokens", *SAMPLING} & set(first)
    assert ("stop" in first) == model.startswith("o")  # gpt-5 takes no stop either
    warned = dropped(caplog)
    assert len(warned) == len(SAMPLING) + (0 if model.startswith("o") else 1)  # once each
    assert all(f"{model} is a reasoning model" in w and KEY not in w for w in warned)


def test_openai_chat_models_keep_their_settings(wire_stub, caplog):
    caplog.set_level(logging.WARNING, "agentv.llm")
    for model in ("gpt-4o-mini", "gpt-5-chat-latest", "gpt-4.1"):
        wire_stub.reset()
        built = provider("openai", wire_stub, model, max_output_tokens=64, **SAMPLING)
        [body] = bodies(built, wire_stub, calls=1)
        assert body["max_tokens"] == 64 and "max_completion_tokens" not in body
        assert {k: body[k] for k in SAMPLING} == SAMPLING
    assert dropped(caplog) == []


def test_gpt5_1_with_no_reasoning_takes_temperature_and_top_p(wire_stub):
    built = provider("openai", wire_stub, "gpt-5.1", reasoning_effort="none", **SAMPLING)
    [body] = bodies(built, wire_stub, calls=1)
    assert (body["temperature"], body["top_p"], body["reasoning_effort"]) == (0.2, 0.9, "none")
    assert "presence_penalty" not in body


def test_o1_mini_gets_the_system_turn_as_a_user_turn(wire_stub):
    [body] = bodies(provider("openai", wire_stub, "o1-mini"), wire_stub, calls=1)
    assert [m["role"] for m in body["messages"]] == ["user", "user"]


def test_an_azure_reasoning_deployment_is_treated_alike(wire_stub):
    built = provider("azure", wire_stub, "o3-mini", max_output_tokens=32, temperature=0.5)
    [body] = bodies(built, wire_stub, calls=1)
    assert body["max_completion_tokens"] == 32 and "temperature" not in body
    assert wire_stub.completions()[0].path == "/openai/deployments/o3-mini/chat/completions"


def test_reasoning_effort_is_left_out_only_where_openai_is_known_not_to_take_it():
    """OpenAI's own API rejects it for a chat model; a compatible server may take it."""
    on_openai = chat_rules("gpt-4o", {"reasoning_effort": "low"}, openai_itself=True)
    assert list(on_openai.drop) == ["reasoning_effort"]
    assert chat_rules("gpt-oss-20b", {"reasoning_effort": "low"}, openai_itself=False).drop == {}
    assert chat_rules("o3", {"reasoning_effort": "low"}, openai_itself=True).drop == {}


# ---------------------------------------------------------------------------- Anthropic
def test_anthropic_thinking_budget_stays_below_max_tokens(wire_stub, caplog):
    caplog.set_level(logging.WARNING, "agentv.llm")
    built = provider("anthropic", wire_stub, "claude-haiku-4-5", max_output_tokens=64,
                     reasoning_effort="high", seed=7, **SAMPLING)
    first, second = bodies(built, wire_stub)
    assert first == second
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 4096}
    assert first["max_tokens"] == 64 + 4096  # the answer's 64 tokens on top of the budget
    assert not {"temperature", "top_p", "seed", "presence_penalty", "frequency_penalty"} \
        & set(first)
    warned = dropped(caplog)
    assert len(warned) == 5 and any("extended thinking takes no temperature" in w
                                    for w in warned)


def test_anthropic_without_thinking_sends_the_sampling_it_takes(wire_stub, caplog):
    caplog.set_level(logging.WARNING, "agentv.llm")
    built = provider("anthropic", wire_stub, "claude-3-5-haiku-20241022", max_output_tokens=64,
                     temperature=0.2, top_p=0.9)
    [body] = bodies(built, wire_stub, calls=1)
    assert (body["max_tokens"], body["temperature"], body["top_p"]) == (64, 0.2, 0.9)
    assert "thinking" not in body and dropped(caplog) == []


@pytest.mark.parametrize("asked, effort, limit, expected", [
    (None, "low", 64000, (64000, 1024)),  # the model's limit: the budget fits below it
    (None, "minimal", None, (4096 + 1024, 1024)),  # unknown model: 4096 for the answer
    (2500, "high", 3000, (3000, 2999)),  # the model's limit: the budget is lowered
    (500, "medium", 1024, (500, None)),  # not even 1024 tokens fit: no thinking
    (64, "none", 64000, (64, None)),
])
def test_anthropic_thinking_shapes(asked, effort, limit, expected):
    params = {"max_tokens": asked, "reasoning_effort": effort, "temperature": 0.3}
    shape = messages_shape("claude-sonnet-4-5", params, limit)
    budget = shape.thinking["budget_tokens"] if shape.thinking else None
    assert (shape.max_tokens, budget) == expected
    if budget is not None:
        assert budget < shape.max_tokens and "temperature" in shape.drop
    else:
        assert "temperature" not in shape.drop


def test_claude_4_5_takes_temperature_or_top_p_not_both():
    both = {"temperature": 0.2, "top_p": 0.9}
    assert list(messages_shape("claude-sonnet-4-5-20250929", both, None).drop) == ["top_p"]
    assert messages_shape("claude-3-7-sonnet-20250219", both, None).drop == {}


# ------------------------------------------------------------------------------- Gemini
@pytest.mark.parametrize("model, effort, config", [
    ("gemini-2.5-flash", "low", {"thinkingBudget": 1024}),
    ("gemini-2.5-pro", "minimal", {"thinkingBudget": 128}),
    ("gemini-3-pro-preview", "medium", {"thinkingLevel": "high"}),
    ("gemini-3-flash-preview", "minimal", {"thinkingLevel": "minimal"}),
])
def test_gemini_thinking_config(model, effort, config, wire_stub):
    built = provider("gemini", wire_stub, model, max_output_tokens=64, reasoning_effort=effort)
    [body] = bodies(built, wire_stub, calls=1)
    generation = body["generationConfig"]
    assert generation["thinkingConfig"] == config
    assert generation["maxOutputTokens"] == 64 + config.get("thinkingBudget", 0)


def test_gemini_models_that_do_not_think_get_no_thinking_config(wire_stub, caplog):
    caplog.set_level(logging.WARNING, "agentv.llm")
    built = provider("gemini", wire_stub, "gemini-2.0-flash", max_output_tokens=64,
                     reasoning_effort="high")
    first, _ = bodies(built, wire_stub)
    assert first["generationConfig"] == {"maxOutputTokens": 64}
    [warned] = dropped(caplog)
    assert "reasoning_effort is not sent: gemini-2.0-flash does not think" in warned
