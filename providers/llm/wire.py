"""The shared base of agentv's own LLM wire clients (openai, azure, anthropic, gemini).

Each wire format is a small subclass that says where to POST (``url``), how to
authenticate (``auth_headers``), how to render the request (``body``) and how to read the
reply (``parse``); this base owns everything else, identical on every route: one aiohttp
session per event loop (closed by ``aclose``), the timeout, error classification
(``providers.llm.errors``: retryable 429/5xx/timeouts/dropped connections with Retry-After,
auth and bad requests not), cost from litellm's price map read as data
(``providers.llm.prices``), and the cache key (``LLMProvider.cache_key_material``: the
reply-shaping settings, never the transport). litellm is not imported: ~0.3 ms of CPU per
call instead of ~4–5 ms, and no 175 MB import. Keys go in headers only, never in a URL,
a record, a log line or an error message.

What a vendor's models take differs (OpenAI's reasoning models, Anthropic's thinking budget,
Gemini's thinking config): each vendor module decides it once per target, from the model
name and the settings, and ``drop`` says once per target which setting is not sent and why.
"""
from __future__ import annotations

import asyncio
import json
import logging
import time
from abc import abstractmethod
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from agentv.providers.base import (
    ConfigError,
    ProviderError,
    ProviderTimeout,
    Request,
    Response,
    Target,
    Usage,
)
from agentv.providers.llm.endpoint import Endpoint
from agentv.providers.llm.errors import http_error, malformed, rate_limit_remaining
from agentv.providers.llm.litellm_route import LLMProvider
from agentv.providers.llm.prices import TokenCounts, cost_usd, warm

# finish reasons in OpenAI's vocabulary, whatever the wire said (litellm maps them alike)
FINISH = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length",
          "tool_use": "tool_calls", "refusal": "content_filter", "pause_turn": "stop",
          "STOP": "stop", "MAX_TOKENS": "length", "SAFETY": "content_filter",
          "RECITATION": "content_filter", "BLOCKLIST": "content_filter",
          "PROHIBITED_CONTENT": "content_filter", "SPII": "content_filter",
          "IMAGE_SAFETY": "content_filter", "LANGUAGE": "content_filter",
          "OTHER": "stop", "FINISH_REASON_UNSPECIFIED": "stop"}
REASONING_BUDGET = {"minimal": 128, "low": 1024, "medium": 2048, "high": 4096}
log = logging.getLogger("agentv.llm")


@dataclass
class Parsed:
    """A reply in wire-neutral terms."""

    text: str
    tokens: TokenCounts
    finish_reason: str | None = None
    reply_id: str | None = None
    model: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class WireProvider(LLMProvider):
    """An LLM target spoken to directly over HTTP (see the module docstring)."""

    price_prefix = ""  # how litellm's price map spells this route's models, e.g. "gemini/"

    def __init__(self, target: Target):
        super().__init__(target)
        self._sessions: dict[int, Any] = {}  # one aiohttp session per event loop
        self._dropped: set[str] = set()  # settings already warned about

    def drop(self, name: str, why: str) -> None:
        """A setting this model does not take is left out of the request: said once."""
        if name not in self._dropped:
            self._dropped.add(name)
            log.warning("target %s (%s %s): %s is not sent: %s", self.name, self.kind,
                        self.model_name, name, why)

    # ------------------------------------------------------------ what a wire says
    @abstractmethod
    def url(self) -> str:
        """Where the request is POSTed."""

    @abstractmethod
    def auth_headers(self) -> dict[str, str]:
        """The headers carrying the key (never logged)."""

    @abstractmethod
    def body(self, params: dict[str, Any]) -> dict[str, Any]:
        """The request's JSON body in this wire's shape."""

    @abstractmethod
    def parse(self, data: Any) -> Parsed:
        """The reply's JSON → Parsed; KeyError/TypeError/… mean a malformed body."""

    # ------------------------------------------------------------ shared
    @property
    def model_name(self) -> str:
        """The model (or deployment) without the litellm route prefix."""
        prefix = self.price_prefix or f"{self.kind}/"
        return self.config.model.removeprefix(prefix)

    def check(self) -> None:
        _ = self.config  # raises ConfigError listing what is missing
        if not self.model_name:
            raise ConfigError("must name a model", self.target.where, "model")
        warm()  # its replies are priced: the price map is read while the run starts

    @cached_property
    def endpoint(self) -> Endpoint | None:
        """The target's ``base_url`` split into base, query and Basic auth (None: default)."""
        base = self.config.api_base
        return Endpoint.parse(base) if base else None

    def base(self, default: str) -> str:
        """Where the route's path goes: ``base_url`` without userinfo and query, else
        the vendor's own ``default``."""
        endpoint = self.endpoint
        return endpoint.base if endpoint is not None else default.rstrip("/")

    def full_url(self) -> str:
        """``url()`` with the ``base_url``'s query parameters after the path."""
        endpoint = self.endpoint
        return endpoint.url(self.url()) if endpoint is not None else self.url()

    def headers(self, params: dict[str, Any]) -> dict[str, str]:
        extra = params.get("extra_headers") or {}
        endpoint = self.endpoint
        basic = {"Authorization": endpoint.authorization} \
            if endpoint is not None and endpoint.authorization else {}
        return {**{str(k): str(v) for k, v in extra.items()}, **self.auth_headers(), **basic}

    def _session(self):
        import aiohttp
        loop = asyncio.get_running_loop()
        session = self._sessions.get(id(loop))
        if session is None or session.closed:
            connector = aiohttp.TCPConnector(limit=0, ttl_dns_cache=300)
            session = aiohttp.ClientSession(connector=connector)
            self._sessions[id(loop)] = session
        return session

    async def invoke(self, request: Request) -> Response:
        c = self.config
        params = self.request_params(request)
        body = json.dumps(self.body(params)).encode()
        headers = {"Content-Type": "application/json", **self.headers(params)}
        label = f"{self.name} ({self.model_name})"
        url = self.full_url()
        started = time.perf_counter()
        try:
            async with asyncio.timeout(c.timeout_s):
                async with self._session().post(url, data=body, headers=headers) as resp:
                    raw = await resp.read()
                    status, resp_headers = resp.status, resp.headers
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            raise ProviderTimeout(f"{label}: no reply within {c.timeout_s:g}s",
                                  details={"status": None, "kind": "timeout"}) from None
        except Exception as err:  # noqa: BLE001 - connection reset, refused, DNS…
            raise ProviderError(f"{label}: connection failed: {type(err).__name__}",
                                retryable=True, details={"error_type": type(err).__name__,
                                                         "status": None,
                                                         "kind": "connection"}) from None
        if status >= 400:
            raise http_error(label, status, resp_headers, raw, self.target.secret_values())
        try:
            parsed = self.parse(json.loads(raw))
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise malformed(label, raw) from None
        response = self._mapped(parsed, (time.perf_counter() - started) * 1000)
        response.rate_limit_remaining = rate_limit_remaining(resp_headers)
        return response

    def _mapped(self, parsed: Parsed, latency_ms: float) -> Response:
        names = [parsed.model, self.model_name]
        priced = [f"{self.price_prefix}{n}" for n in names if n] + names
        cost = cost_usd(priced, parsed.tokens)
        usage = Usage(parsed.tokens.input, parsed.tokens.output, cost,
                      cached_tokens=parsed.tokens.cache_read or None)
        return Response(text=parsed.text,
                        output_messages=[{"role": "assistant", "content": parsed.text}],
                        usage=usage, latency_ms=latency_ms,
                        raw={"id": parsed.reply_id, "model": parsed.model or self.model_name,
                             "provider": self.kind, "finish_reason": parsed.finish_reason,
                             **parsed.extra})

    async def aclose(self) -> None:
        for session in self._sessions.values():
            if not session.closed:
                await session.close()
        self._sessions.clear()


def merged_turns(messages: list[dict[str, str]]) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """(system texts, [(role, texts)]) with consecutive same-role turns merged: the shape
    the Anthropic and Gemini APIs want (roles alternate, the system prompt apart)."""
    system: list[str] = []
    turns: list[tuple[str, list[str]]] = []
    for m in messages:
        if m["role"] == "system":
            system.append(m["content"])
        elif turns and turns[-1][0] == m["role"]:
            turns[-1][1].append(m["content"])
        else:
            turns.append((m["role"], [m["content"]]))
    return system, turns


def stop_list(value: Any) -> list[str] | None:
    if value is None:
        return None
    return [value] if isinstance(value, str) else [str(v) for v in value]
