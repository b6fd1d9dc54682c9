"""A base_url with a query string or a user:password@, on every wire route, against the
loopback stub (tests/stub_llm.py): the query follows the route's path, the userinfo is HTTP
Basic auth, and neither is in the URL the stub sees nor in an error message."""
from __future__ import annotations

import asyncio
import base64

import pytest

from agentv.providers.base import ConfigError, Request, Target
from agentv.providers.llm.endpoint import Endpoint
from agentv.providers.registry import build_provider
from tests.providers.llm.test_routes import KEYS, WIRE, settings_for

WIRES = ["openai", "azure", "anthropic", "gemini"]
TOKEN = "tok-q-0123456789abcdef"
USER, PASSWORD = "proxy-user", "p@ss:w/rd-0123456789"


def _with(base: str, userinfo: str = "", query: str = "") -> str:
    scheme, rest = base.split("://", 1)
    return f"{scheme}://{userinfo}{rest}{query}"


def _call(kind: str, base: str, **extra):
    settings = settings_for(kind, base, **extra)
    if kind == "openai" and "@" in settings["base_url"]:
        settings.pop("api_key")  # Basic auth takes the Authorization header
    target = Target(name=f"t-{kind}", provider=kind, settings=settings, where="targets.yaml:3")
    provider = build_provider(target)
    provider.check()
    try:
        return asyncio.run(provider.invoke(Request(eval_id="c1", question="What is 2 + 2?")))
    finally:
        asyncio.run(provider.aclose())


def _base_key(kind: str) -> str:
    return "endpoint" if kind == "azure" else "base_url"


@pytest.mark.parametrize("kind", WIRES)
def test_query_parameters_follow_the_route_path(kind, wire_stub):
    base = settings_for(kind, wire_stub.base_url)[_base_key(kind)]
    response = _call(kind, wire_stub.base_url,
                     **{_base_key(kind): f"{base}?token={TOKEN}&region=eu-west"})
    assert "4" in response.text
    (request,) = wire_stub.requests
    assert request.wire == kind and request.path.endswith(WIRE[kind][0])
    assert request.query["token"] == TOKEN and request.query["region"] == "eu-west"
    if kind == "azure":
        assert request.query["api-version"] == "2024-10-21"


@pytest.mark.parametrize("kind", WIRES)
def test_userinfo_is_sent_as_basic_auth(kind, wire_stub):
    base = settings_for(kind, wire_stub.base_url)[_base_key(kind)]
    quoted = f"{USER}:{PASSWORD.replace('@', '%40').replace('/', '%2F')}@"
    response = _call(kind, wire_stub.base_url, **{_base_key(kind): _with(base, quoted)})
    assert "4" in response.text
    (request,) = wire_stub.requests
    expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    assert request.headers["authorization"] == expected
    header, value = WIRE[kind][1], WIRE[kind][2]
    if header != "authorization":  # the vendor's key header is still sent beside it
        assert request.headers[header] == value.format(key=KEYS[kind])


def test_userinfo_and_an_openai_key_are_one_clear_error():
    from agentv.providers.base_settings import parse_settings
    from agentv.providers.llm.settings import OpenAISettings
    with pytest.raises(ConfigError) as err:
        parse_settings(OpenAISettings, {"model": "m", "api_key": "sk-1234567890",
                                        "base_url": "http://u:pw-123456@127.0.0.1:9/v1"},
                       where="targets.yaml:4")
    assert "Basic auth" in str(err.value) and "keep one" in str(err.value)
    assert err.value.field == "base_url"
    assert err.value.render().startswith("targets.yaml:4: base_url: has a user:password@")
    assert "pw-123456" not in err.value.render()  # a secret-bearing value is never echoed


def test_endpoint_split():
    endpoint = Endpoint.parse("http://u%40x:p%3Aq@127.0.0.1:8080/v1/?a=1&token=t%2Bu#frag")
    assert endpoint.base == "http://127.0.0.1:8080/v1"
    assert endpoint.query == (("a", "1"), ("token", "t+u"))
    assert endpoint.authorization == "Basic " + base64.b64encode(b"u@x:p:q").decode()
    assert endpoint.url(endpoint.base + "/chat/completions?api-version=2") == \
        "http://127.0.0.1:8080/v1/chat/completions?api-version=2&a=1&token=t%2Bu"
    assert Endpoint.parse("https://h/v1").url("https://h/v1/x") == "https://h/v1/x"
