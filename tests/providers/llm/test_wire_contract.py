"""One contract test per wire format: agentv's own clients (openai, azure, anthropic,
gemini) against the loopback stub speaking that format exactly, checked against litellm
calling the same stub (``provider: litellm``) as the reference for request shape, usage,
cost and error classification.

Each contract: the exact request (method, path, query, auth headers, body), the reply
mapping (text, usage, cost, finish reason, tool calls, cached tokens), 429 + Retry-After,
500, a malformed body and a timeout retried by the one retry layer, 401 not retried and
the key hidden, context-length and content-filter replies classified alike on both
routes, and a cache key that does not depend on the transport.
"""
from __future__ import annotations

import asyncio

import pytest

from agentv.providers.base import ProviderError, ProviderTimeout, Request, Target
from agentv.providers.llm.cache import ResponseCache
from agentv.providers.llm.litellm_route import (
    AnthropicProvider,
    AzureProvider,
    GeminiProvider,
    OpenAIProvider,
)
from agentv.providers.llm.retry import RetryingProvider, RetryPolicy
from agentv.providers.registry import build_provider

WIRES = ["openai", "azure", "anthropic", "gemini"]
KEY = "sk-contract-SECRET-9876543210"
SYSTEM = "Answer in one short sentence."
LITELLM_CLASS = {"openai": OpenAIProvider, "azure": AzureProvider,
                 "anthropic": AnthropicProvider, "gemini": GeminiProvider}
MODEL = {"openai": "gpt-4o-mini", "azure": "gpt-4o", "anthropic": "claude-haiku-4-5",
         "gemini": "gemini-2.5-flash"}



def settings(wire: str, base: str, timeout: float = 10.0) -> dict:
    common = {"api_key": KEY, "model": MODEL[wire], "temperature": 0.2,
              "max_output_tokens": 64, "timeout_seconds": timeout}
    return {**common, **{"openai": {"base_url": f"{base}/v1"},
                         "azure": {"endpoint": base, "version": "2024-10-21"},
                         "anthropic": {"base_url": base}, "gemini": {"base_url": base}}[wire]}


def own(wire: str, wire_stub, timeout: float = 10.0):
    provider = build_provider(Target(f"t-{wire}", wire, settings(wire, wire_stub.base_url, timeout),
                                     where="targets.yaml:2", secrets=[KEY]))
    provider.check()
    return provider


def via_litellm(wire: str, wire_stub, timeout: float = 10.0):
    s = settings(wire, wire_stub.base_url, timeout)
    prefix = f"{wire}/"
    model = prefix + (MODEL[wire])
    s = {**{k: v for k, v in s.items() if k not in ("base_url", "endpoint", "model")},
         "model": model, "api_base": s.get("base_url") or s.get("endpoint")}
    provider = build_provider(Target(f"t-{wire}", "litellm", s, where="targets.yaml:9",
                                     secrets=[KEY]))
    provider.check()
    return provider


def request(question: str = "What is 2 + 3?", **kw) -> Request:
    chat = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "What is 1 + 1?"},
            {"role": "assistant", "content": "The answer is 2."},
            {"role": "user", "content": question}]
    return Request(eval_id="c1", question=question, chat=chat, **kw)


def run(provider, req=None, retries: int = 3):
    wrapped = RetryingProvider(provider, RetryPolicy(max_retries=retries, initial_delay_ms=10))

    async def once():
        try:
            return await wrapped.invoke_counted(req or request())
        finally:
            await provider.aclose()  # the owner closes what it opened (one session per loop)
    return asyncio.run(once())


def outcome(provider, wire_stub, action):
    """(error kind, retryable, status, text, finish reason) of one scripted reply."""
    wire_stub.reset()
    wire_stub.configure(script=[action])
    try:
        response, _ = run(provider, retries=0)
    except ProviderError as err:
        assert KEY not in str(err) and KEY not in repr(err.details)
        return (err.details.get("kind"), err.retryable, err.status, None, None)
    return (None, None, None, response.text, response.raw["finish_reason"])


EXPECTED = {
    "openai": ("/v1/chat/completions", {}, {"authorization": f"Bearer {KEY}"}),
    "azure": ("/openai/deployments/gpt-4o/chat/completions", {"api-version": "2024-10-21"},
              {"api-key": KEY}),
    "anthropic": ("/v1/messages", {}, {"x-api-key": KEY, "anthropic-version": "2023-06-01"}),
    "gemini": ("/models/gemini-2.5-flash:generateContent", {}, {"x-goog-api-key": KEY}),
}


def expected_body(wire: str) -> dict:
    turns = [("user", "What is 1 + 1?"), ("assistant", "The answer is 2."),
             ("user", "What is 2 + 3?")]
    if wire == "anthropic":
        return {"model": MODEL[wire], "max_tokens": 64, "temperature": 0.2,
                "system": [{"type": "text", "text": SYSTEM}],
                "messages": [{"role": r, "content": [{"type": "text", "text": t}]}
                             for r, t in turns]}
    if wire == "gemini":
        return {"system_instruction": {"parts": [{"text": SYSTEM}]},
                "contents": [{"role": "model" if r == "assistant" else "user",
                              "parts": [{"text": t}]} for r, t in turns],
                "generationConfig": {"temperature": 0.2, "maxOutputTokens": 64}}
    return {"model": MODEL[wire], "temperature": 0.2, "max_tokens": 64,
            "messages": [{"role": "system", "content": SYSTEM}]
            + [{"role": r, "content": t} for r, t in turns]}


@pytest.mark.slow
@pytest.mark.parametrize("wire", WIRES)
def test_wire_contract(wire, wire_stub):
    mine, ref = own(wire, wire_stub), via_litellm(wire, wire_stub)
    assert type(mine).__module__ in {"agentv.providers.llm.openai",
                                     "agentv.providers.llm.anthropic",
                                     "agentv.providers.llm.gemini"}  # our client, not litellm
    # 1. the exact request, and the same reply mapping as litellm's
    response, attempts = run(mine)
    reference, _ = run(ref)
    [seen, ref_seen] = wire_stub.requests
    path, query, auth = EXPECTED[wire]
    assert (seen.method, seen.path, seen.query) == ("POST", path, query)
    assert {k: seen.headers[k] for k in auth} == auth
    assert seen.headers["content-type"] == "application/json"
    assert seen.body == expected_body(wire)
    assert (ref_seen.path, ref_seen.query) == (path, query)
    assert (response.text, attempts) == ("The answer is 5.", 1)
    assert response.text == reference.text
    assert response.usage.to_dict() == reference.usage.to_dict()
    assert response.raw["finish_reason"] == reference.raw["finish_reason"] == "stop"
    assert KEY not in repr(response) and KEY not in seen.path + repr(seen.query)
    # 2. the cache key does not depend on the transport
    req = request()
    assert mine.cache_key_material(req) == LITELLM_CLASS[wire](mine.target) \
        .cache_key_material(req)
    assert ResponseCache.key(mine.cache_key_material(req), req) == \
        ResponseCache.key(LITELLM_CLASS[wire](mine.target).cache_key_material(req), req)
    assert KEY not in repr(mine.cache_key_material(req))
    # 3. 429 (Retry-After honoured), 500 and a malformed body: retried by the one layer
    wire_stub.reset()
    wire_stub.configure(script=[429, 500, "malformed"], retry_after=0.3)
    response, attempts = run(mine)
    assert (response.text, attempts) == ("The answer is 5.", 4)
    assert [r.status for r in wire_stub.requests] == [429, 500, 200, 200]
    assert wire_stub.requests[1].at - wire_stub.requests[0].at >= 0.3 and wire_stub.violations == []
    # 4. a timeout is retried, and is a ProviderTimeout when retries run out
    wire_stub.reset()
    wire_stub.configure(script=["slow", "slow"], slow_s=2)
    with pytest.raises(ProviderTimeout) as info:
        run(own(wire, wire_stub, timeout=0.5), retries=1)
    assert len(wire_stub.requests) == 2 and info.value.details["kind"] == "timeout"
    # 5. every error is classified as through litellm: auth, context length, content filter
    for action in (401, "context_length", "content_filter", 503, "malformed"):
        assert outcome(mine, wire_stub, action) == outcome(ref, wire_stub, action), action
    assert outcome(mine, wire_stub, 401)[:3] == ("auth", False, 401)
    assert outcome(mine, wire_stub, "context_length")[:3] == ("context_length", False, 400)


@pytest.mark.slow
@pytest.mark.parametrize("wire", WIRES)
def test_cached_prompt_tokens_are_priced_like_litellm(wire, wire_stub):
    mine, ref = own(wire, wire_stub), via_litellm(wire, wire_stub)
    wire_stub.configure(script=["cached", "cached"])
    response, reference = run(mine)[0], run(ref)[0]
    assert response.usage.input_tokens == reference.usage.input_tokens > 1000
    assert response.usage.cached_tokens == 1000
    if wire != "azure":  # the deployment name has no price
        assert response.usage.cost_usd == pytest.approx(reference.usage.cost_usd, rel=1e-6)


@pytest.mark.parametrize("wire", WIRES)
def test_tool_calls_are_listed(wire, wire_stub):
    wire_stub.configure(script=["tool_use"])
    response, _ = run(own(wire, wire_stub))
    assert response.text == "The answer is 5."
    [call] = response.raw["tool_calls"]
    assert call["name"] == "lookup"
    assert call["arguments"] in ({"q": "2 + 3"}, '{"q": "2 + 3"}')  # openai: a JSON string
    if wire == "anthropic":
        assert response.raw["finish_reason"] == "tool_calls" and call["id"] == "toolu_01"


@pytest.mark.slow
def test_routes_do_not_import_litellm():
    import subprocess
    import sys

    from tests.conftest import ROOT
    code = ("import asyncio, sys\nfrom tests.stub_llm import start_stub\n"
            "from providers.registry import build_provider\nfrom providers.base import "
            "Target, Request\nbase, stub = start_stub()\n"
            "for kind, s in [('azure', {'endpoint': base, 'model': 'd'}), "
            "('anthropic', {'base_url': base, 'model': 'claude-haiku-4-5'}), "
            "('gemini', {'base_url': base, 'model': 'gemini-2.5-flash'})]:\n"
            "    p = build_provider(Target('t', kind, {**s, 'api_key': 'k-1234'}))\n"
            "    p.check()\n"
            "    async def go():\n"
            "        r = await p.invoke(Request(eval_id='e', question='What is 1 + 2?'))\n"
            "        await p.aclose()\n        return r\n"
            "    r = asyncio.run(go())\n"
            "    assert r.text == 'The answer is 3.', r.text\n"
            "assert 'litellm' not in sys.modules, 'litellm imported'\nstub.stop()\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize("wire", WIRES)
def test_key_never_in_errors_or_logs(wire, wire_stub, caplog):
    caplog.set_level("DEBUG")
    wire_stub.configure(script=[429, 401], retry_after=0.05)
    with pytest.raises(ProviderError) as info:
        run(own(wire, wire_stub))
    assert info.value.status == 401 and KEY in repr(wire_stub.requests[-1].headers)
    texts = [str(info.value), repr(info.value.details), caplog.text,
             *(repr(r.__dict__) for r in caplog.records)]
    assert not [t for t in texts if KEY in t]
