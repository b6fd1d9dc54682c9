"""LLM targets end to end on loopback: real litellm, real HTTP, the project's own wire_stub.

Every provider is called through the one retry layer (``RetryingProvider``), against
``tests/stub_llm.py`` speaking the OpenAI, Azure, Anthropic and Gemini wire formats.
"""
from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time

import pytest

from agentv.providers.base import ConfigError, ProviderError, ProviderTimeout, Request, Target
from agentv.providers.llm.cache import CachingProvider, ResponseCache
from agentv.providers.llm.retry import RetryingProvider, RetryPolicy
from agentv.providers.registry import build_provider
from tests import TESTS
from tests.conftest import ROOT
from tests.stub_llm import start_stub

KINDS = ["openai", "azure", "anthropic", "gemini", "litellm"]
# litellm's import alone costs seconds: its routes run in the full suite, not the fast subset
ROUTES = [*KINDS[:-1], pytest.param("litellm", marks=pytest.mark.slow)]
KEYS = {kind: f"sk-{kind}-SECRET-0123456789" for kind in KINDS}
GUIDELINES = "[[ ## Guidelines ## ]]\n\nAnswer in one short sentence."
# kind -> (path the stub must see, header carrying the key, expected key header value)
WIRE = {
    "openai": ("/v1/chat/completions", "authorization", "Bearer {key}"),
    "azure": ("/openai/deployments/my-deployment/chat/completions", "api-key", "{key}"),
    "anthropic": ("/v1/messages", "x-api-key", "{key}"),
    "gemini": ("/models/gemini-2.5-flash:generateContent", "x-goog-api-key", "{key}"),
    "litellm": ("/v1/messages", "x-api-key", "{key}"),  # anthropic wire via a model string
}
PRICED = {"openai", "anthropic", "gemini", "litellm"}  # "my-deployment" has no price



def settings_for(kind: str, base: str, **extra) -> dict:
    key = KEYS[kind]
    settings = {
        "openai": {"model": "gpt-4o-mini", "base_url": f"{base}/v1", "api_key": key},
        "azure": {"endpoint": base, "api_key": key, "model": "my-deployment",
                  "version": "2024-10-21"},
        "anthropic": {"base_url": base, "api_key": key, "model": "claude-haiku-4-5"},
        "gemini": {"base_url": base, "apiKey": key, "model": "gemini-2.5-flash"},
        "litellm": {"model": "anthropic/claude-haiku-4-5", "api_base": base, "api_key": key},
    }[kind]
    return {**settings, **extra}


def make_provider(kind: str, wire_stub, **extra):
    target = Target(name=f"t-{kind}", provider=kind, settings=settings_for(kind, wire_stub.base_url,
                                                                           **extra),
                    where="targets.yaml:3")
    provider = build_provider(target)
    provider.check()
    return provider


def chat_request(question: str = "What is 2 + 3?", **kw) -> Request:
    chat = [{"role": "system", "content": GUIDELINES},
            {"role": "user", "content": "What is 1 + 1?"},
            {"role": "assistant", "content": "The answer is 2."},
            {"role": "user", "content": question}]
    return Request(eval_id="case-1", question=question, chat=chat, guidelines=GUIDELINES, **kw)


def call(provider, request=None, **policy):
    policy = {"initial_delay_ms": 10, "max_delay_ms": 5000, **policy}
    wrapped = RetryingProvider(provider, RetryPolicy(**policy))

    async def once():
        try:
            return await wrapped.invoke_counted(request or chat_request())
        finally:
            await wrapped.aclose()  # the owner closes what it opened
    return asyncio.run(once())


def no_key_in(kind: str, *objects) -> None:
    for obj in objects:
        assert KEYS[kind] not in repr(obj)


# ---------------------------------------------------------------- wire formats
@pytest.mark.parametrize("kind", ROUTES)
def test_request_and_reply_on_each_wire(kind, wire_stub):
    provider = make_provider(kind, wire_stub, temperature=0.3, max_output_tokens=77)
    response, attempts = call(provider)
    assert (response.text, attempts) == ("The answer is 5.", 1)
    [seen] = wire_stub.requests
    path, header, value = WIRE[kind]
    assert (seen.method, seen.path) == ("POST", path)
    assert seen.headers[header] == value.format(key=KEYS[kind])
    _check_body(kind, seen)
    assert response.usage.input_tokens > 0 and response.usage.output_tokens > 0
    if kind in PRICED:
        assert response.usage.cost_usd > 0
    else:
        assert response.usage.cost_usd is None
    assert response.output_messages == [{"role": "assistant", "content": "The answer is 5."}]
    no_key_in(kind, response, response.raw)


def _check_body(kind: str, seen) -> None:
    body = seen.body
    if kind in ("openai", "azure"):
        assert body["messages"][0] == {"role": "system", "content": GUIDELINES}
        assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "user"]
        assert (body["temperature"], body["max_tokens"]) == (0.3, 77)
    if kind == "azure":
        assert seen.query == {"api-version": "2024-10-21"}
    if kind in ("anthropic", "litellm"):
        assert body["system"] == [{"type": "text", "text": GUIDELINES}]
        assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
        assert (body["temperature"], body["max_tokens"]) == (0.3, 77)
    if kind == "gemini":
        assert body["system_instruction"] == {"parts": [{"text": GUIDELINES}]}
        assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
        config = body["generationConfig"]
        assert config["temperature"] == 0.3
        assert config.get("maxOutputTokens", config.get("max_output_tokens")) == 77


def test_question_without_chat_and_tool_turns(wire_stub):
    provider = make_provider("openai", wire_stub)
    plain = Request(eval_id="p", question="What is 4 + 4?", system_prompt="Be brief.")
    assert call(provider, plain)[0].text == "The answer is 8."
    assert wire_stub.requests[0].body["messages"] == [
        {"role": "system", "content": "Be brief."}, {"role": "user", "content": "What is 4 + 4?"}]
    tool = Request(eval_id="t", question="q", chat=[{"role": "tool", "content": "42"},
                                                    {"role": "user", "content": "What is 1 + 2?"}])
    assert call(provider, tool)[0].text == "The answer is 3."
    assert wire_stub.requests[1].body["messages"][0]["role"] == "user"


@pytest.mark.slow
def test_litellm_settings_pass_through(wire_stub):
    provider = build_provider(target("litellm", model="azure/dep2", api_base=wire_stub.base_url,
                                     api_key="k-12345", version="2025-01-01-preview",
                                     user="u-1", max_retries=2))
    provider.check()
    assert call(provider)[0].text == "The answer is 5."
    [seen] = wire_stub.requests
    assert seen.path == "/openai/deployments/dep2/chat/completions"
    assert seen.query == {"api-version": "2025-01-01-preview"}
    assert seen.body["user"] == "u-1" and "max_retries" not in seen.body


def test_openai_pass_through_allowlist(wire_stub):
    provider = make_provider("openai", wire_stub, top_p=0.5, seed=3, unknown_knob=1)
    call(provider)
    body = wire_stub.requests[0].body
    assert (body["top_p"], body["seed"]) == (0.5, 3) and "unknown_knob" not in body


# ---------------------------------------------------------------- retries
@pytest.mark.parametrize("kind", ROUTES)
def test_429_retry_after_is_honoured(kind, wire_stub):
    wire_stub.configure(script=[429, 429], retry_after=0.3)
    response, attempts = call(make_provider(kind, wire_stub))
    assert (response.text, attempts) == ("The answer is 5.", 3)
    times = [r.at for r in wire_stub.requests]
    assert [r.status for r in wire_stub.requests] == [429, 429, 200]
    assert min(b - a for a, b in zip(times, times[1:])) >= 0.3
    assert wire_stub.violations == []


@pytest.mark.parametrize("kind", ROUTES)
def test_500_then_success(kind, wire_stub):
    wire_stub.configure(script=[500])
    response, attempts = call(make_provider(kind, wire_stub))
    assert (response.text, attempts) == ("The answer is 5.", 2)
    assert [r.status for r in wire_stub.requests] == [500, 200]


@pytest.mark.parametrize("kind", ROUTES)
def test_401_is_not_retried_and_hides_the_key(kind, wire_stub):
    wire_stub.configure(script=[401])
    with pytest.raises(ProviderError) as info:
        call(make_provider(kind, wire_stub))
    err = info.value
    assert (err.status, err.retryable, err.attempts, len(wire_stub.requests)) == (401, False, 1, 1)
    assert KEYS[kind] not in str(err) and KEYS[kind] not in repr(err.details)


@pytest.mark.parametrize("kind", ROUTES)
def test_slow_reply_times_out_then_retry_succeeds(kind, wire_stub):
    wire_stub.configure(script=["slow"], slow_s=3)
    started = time.monotonic()
    response, attempts = call(make_provider(kind, wire_stub, timeout_seconds=0.5))
    assert (response.text, attempts) == ("The answer is 5.", 2)
    assert 0.5 <= time.monotonic() - started < 2.5


def test_timeout_exhausting_retries_is_a_timeout_error(wire_stub):
    wire_stub.configure(script=["slow", "slow"], slow_s=2)
    with pytest.raises(ProviderTimeout) as info:
        call(make_provider("openai", wire_stub, timeout_seconds=0.3), max_retries=1)
    assert info.value.attempts == 2 and len(wire_stub.requests) == 2


@pytest.mark.parametrize("kind", ROUTES)
def test_malformed_body_is_retried(kind, wire_stub):
    wire_stub.configure(script=["malformed"])
    response, attempts = call(make_provider(kind, wire_stub))
    assert (response.text, attempts) == ("The answer is 5.", 2)


def test_malformed_body_without_retries_is_a_clear_error(wire_stub):
    wire_stub.configure(script=["malformed"])
    with pytest.raises(ProviderError, match="malformed response"):
        call(make_provider("gemini", wire_stub), max_retries=0)


def test_dropped_connection_is_retried(wire_stub):
    wire_stub.configure(script=["drop"])
    response, attempts = call(make_provider("azure", wire_stub))
    assert (response.text, attempts) == ("The answer is 5.", 2)


def test_status_codes_setting_limits_what_is_retried(wire_stub):
    wire_stub.configure(script=[500])
    with pytest.raises(ProviderError) as info:
        call(make_provider("openai", wire_stub), status_codes=(429,))
    assert info.value.status == 500 and len(wire_stub.requests) == 1


@pytest.mark.slow
def test_20_percent_429s_at_16_workers_all_succeed(wire_stub):
    wire_stub.configure(fail_429=0.2, retry_after=0.2, latency_ms=5, seed=7)
    wrapped = RetryingProvider(make_provider("openai", wire_stub),
                               RetryPolicy(initial_delay_ms=10, max_retries=8))
    gate = asyncio.Semaphore(16)

    async def one(i: int):
        async with gate:
            request = Request(eval_id=f"c{i}", question="", chat=[
                {"role": "user", "content": f"What is {i} + 1?"}])
            return await wrapped.invoke(request)

    async def run_all():
        return await asyncio.gather(*(one(i) for i in range(100)))

    replies = asyncio.run(run_all())
    assert [r.text for r in replies] == [f"The answer is {i + 1}." for i in range(100)]
    assert sum(r.status == 429 for r in wire_stub.requests) > 0
    assert wire_stub.violations == []


# ---------------------------------------------------------------- judge
@pytest.mark.parametrize("kind", ROUTES)
def test_llm_judge_through_each_provider(kind, wire_stub):
    from agentv.evaluators.base import EvalContext, run_evaluator
    from agentv.evaluators.registry import build_evaluator
    judge = RetryingProvider(make_provider(kind, wire_stub), RetryPolicy(initial_delay_ms=10))
    ctx = EvalContext(eval_id="case-1", question="What is 2 + 3?", candidate_answer="5",
                      expected_outcome="says 5", judge=judge, judge_name=f"t-{kind}")
    result = asyncio.run(run_evaluator(build_evaluator({"type": "llm_judge", "name": "j"}), ctx))
    assert result.score == 1.0 and result.hits
    assert result.usage.input_tokens > 0
    assert "score" in json.dumps(wire_stub.requests[0].body)


# ---------------------------------------------------------------- cache
def cached(kind, wire_stub, directory):
    return CachingProvider(make_provider(kind, wire_stub), ResponseCache(directory))


@pytest.mark.parametrize("kind", ["openai", "gemini"])
def test_cache_second_run_makes_no_request(kind, wire_stub, tmp_path):
    questions = [f"What is {i} + 2?" for i in range(3)]
    first = [call(cached(kind, wire_stub, tmp_path), chat_request(q))[0] for q in questions]
    assert len(wire_stub.requests) == 3 and not any(r.cached for r in first)
    again = [call(cached(kind, wire_stub, tmp_path), chat_request(q))[0] for q in questions]
    assert len(wire_stub.requests) == 3
    assert [r.text for r in again] == [r.text for r in first]
    assert all(r.cached and r.usage.cost_usd == 0.0 for r in again)
    assert again[0].usage.input_tokens == first[0].usage.input_tokens
    for entry in tmp_path.rglob("*.json"):
        assert KEYS[kind] not in entry.read_text()


def test_cache_key_separates_trials_purposes_and_settings(wire_stub, tmp_path):
    call(cached("openai", wire_stub, tmp_path), chat_request(trial=0))
    call(cached("openai", wire_stub, tmp_path), chat_request(trial=1))
    call(cached("openai", wire_stub, tmp_path), chat_request(trial=0, purpose="judge"))
    call(CachingProvider(make_provider("openai", wire_stub, temperature=0.9),
                         ResponseCache(tmp_path)), chat_request(trial=0))
    assert len(wire_stub.requests) == 4
    call(cached("openai", wire_stub, tmp_path), chat_request(trial=1, attempt=3))
    assert len(wire_stub.requests) == 4  # the attempt number is not part of the key


def test_corrupt_cache_entry_is_a_miss(wire_stub, tmp_path):
    call(cached("anthropic", wire_stub, tmp_path))
    [entry] = list(tmp_path.rglob("*.json"))
    entry.write_text("{not json")
    response, _ = call(cached("anthropic", wire_stub, tmp_path))
    assert not response.cached and len(wire_stub.requests) == 2
    assert call(cached("anthropic", wire_stub, tmp_path))[0].cached
    assert len(wire_stub.requests) == 2


def test_errors_are_not_cached(wire_stub, tmp_path):
    wire_stub.configure(script=[401])
    with pytest.raises(ProviderError):
        call(cached("openai", wire_stub, tmp_path))
    assert call(cached("openai", wire_stub, tmp_path))[0].text == "The answer is 5."
    assert len(wire_stub.requests) == 2


# ---------------------------------------------------------------- preflight and bad input
def target(kind: str, **settings) -> Target:
    return Target(name="t", provider=kind, settings=settings, where="targets.yaml:7")


def test_preflight_lists_every_missing_variable(monkeypatch):
    for var in ("AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY", "AZURE_DEPLOYMENT_NAME"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ConfigError) as info:
        build_provider(target("azure-openai")).check()
    message = str(info.value)
    assert message.startswith("targets.yaml:7: ")
    for var in ("AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY", "AZURE_DEPLOYMENT_NAME"):
        assert var in message


def test_empty_values_count_as_missing(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "")
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY, setting 'model'"):
        build_provider(target("anthropic", api_key="")).check()


def test_env_defaults_are_used_and_registered_as_secrets(wire_stub, monkeypatch):
    monkeypatch.setenv("GOOGLE_API_KEY", KEYS["gemini"])
    monkeypatch.setenv("GOOGLE_GEMINI_MODEL", "gemini-2.5-pro")
    t = target("google", base_url=wire_stub.base_url)
    provider = build_provider(t)
    provider.check()
    assert call(provider)[0].text == "The answer is 5."
    assert wire_stub.requests[0].path == "/models/gemini-2.5-pro:generateContent"
    assert wire_stub.requests[0].headers["x-goog-api-key"] == KEYS["gemini"]
    assert KEYS["gemini"] in t.secrets


def test_gemini_default_model_and_setting_precedence(monkeypatch):
    monkeypatch.setenv("GOOGLE_API_KEY", "g-key-1234")
    monkeypatch.delenv("GOOGLE_GEMINI_MODEL", raising=False)
    assert build_provider(target("gemini")).config.model == "gemini/gemini-2.5-flash"
    monkeypatch.setenv("GOOGLE_GEMINI_MODEL", "gemini-2.5-pro")
    assert build_provider(target("gemini", model="gemini-x")).config.model == "gemini/gemini-x"


@pytest.mark.slow
def test_litellm_provider_lists_keys_litellm_needs(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        build_provider(target("litellm", model="anthropic/claude-haiku-4-5")).check()
    build_provider(target("litellm", model="ollama/llama3")).check()  # needs no key


@pytest.mark.slow
def test_model_litellm_cannot_route():
    with pytest.raises(ConfigError, match="cannot route model 'no-such-model'") as info:
        build_provider(target("litellm", model="no-such-model")).check()
    assert info.value.field == "model"


@pytest.mark.parametrize("settings, field", [
    ({"base_url": "localhost:8080"}, "base_url"),
    ({"base_url": "ftp://example.com"}, "base_url"),
    ({"temperature": "hot"}, "temperature"),
    ({"max_output_tokens": 1.5}, "max_output_tokens"),
    ({"timeout_seconds": 0}, "timeout_seconds"),
])
def test_bad_settings(settings, field):
    with pytest.raises(ConfigError) as info:
        build_provider(target("openai", model="m", api_key="k-123", **settings)).check()
    assert info.value.field == field and info.value.where == "targets.yaml:7"


@pytest.mark.parametrize("settings, field", [
    ({"max_retries": -1}, "max_retries"),
    ({"retry_status_codes": ["abc"]}, "retry_status_codes.0"),
    ({"retryStatusCodes": [429, "abc"]}, "retryStatusCodes.1"),
    ({"retryStatusCodes": [429, 700]}, "retryStatusCodes.1"),
    ({"retryBackoffFactor": True}, "retryBackoffFactor"),
])
def test_bad_retry_settings(settings, field):
    """The retry policy is read from the target's settings model: a bad value is a
    ConfigError naming the key as written (and the item of a list)."""
    provider = build_provider(target("openai", model="m", api_key="k-123", **settings))
    with pytest.raises(ConfigError) as info:
        RetryPolicy.for_provider(provider)
    assert info.value.field == field and info.value.where == "targets.yaml:7"


def test_retry_policy_from_typed_settings():
    """Every retry field of the settings model reaches the policy (camelCase too); the run's
    --max-retries overrides the setting; agents retry timeouts only, twice by default."""
    provider = build_provider(target("openai", model="m", api_key="k-123", maxRetries=5,
                                     retryInitialDelayMs="250", retry_max_delay_ms=4000,
                                     retry_backoff_factor=3, retryStatusCodes=[429, 529]))
    policy = RetryPolicy.for_provider(provider)
    assert (policy.max_retries, policy.initial_delay_ms, policy.max_delay_ms,
            policy.backoff_factor, policy.status_codes, policy.timeouts_only) == (
        5, 250.0, 4000.0, 3.0, (429, 529), False)
    assert RetryPolicy.for_provider(provider, max_retries=0).max_retries == 0
    agent = build_provider(Target("a", "codex", {}, where="targets.yaml:9"))
    policy = RetryPolicy.for_provider(agent)
    assert (policy.max_retries, policy.timeouts_only, policy.status_codes) == (
        2, True, (429, 500, 502, 503, 504))


def test_unknown_provider_lists_known_ones():
    with pytest.raises(ConfigError, match="unknown provider 'gpt'.*anthropic.*openai"):
        build_provider(target("gpt"))


def test_openai_compatible_server_without_key(wire_stub, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    provider = build_provider(target("openai", model="local", base_url=f"{wire_stub.base_url}/v1"))
    provider.check()
    assert call(provider)[0].text == "The answer is 5."


def test_unknown_model_cost_is_none_never_an_error(wire_stub):
    provider = build_provider(target("openai", model="stub-model-xyz", api_key="k-1234",
                                     base_url=f"{wire_stub.base_url}/v1"))
    usage = call(provider)[0].usage
    assert usage.cost_usd is None and usage.input_tokens > 0


@pytest.mark.slow
def test_importing_providers_does_not_import_litellm():
    code = ("import sys, providers.registry, providers.llm.litellm_route, providers.llm.cache, "
            "agentv.providers.llm.settings, providers.llm.errors\n"
            "from providers.registry import build_provider\n"
            "from providers.base import Target\n"
            "build_provider(Target('t', 'openai', {'model': 'm'}))\n"
            "assert 'litellm' not in sys.modules, 'litellm imported'\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_stub_is_reusable_standalone():
    base, other = start_stub(script=[503])
    try:
        assert base.startswith("http://127.0.0.1:") and other.base_url == base
        provider = build_provider(target("openai", model="m", api_key="k-1234",
                                         base_url=f"{base}/v1"))
        assert call(provider)[1] == 2 and len(other.completions()) == 2
    finally:
        other.stop()
    assert (TESTS / "stub_llm.py").is_file()
