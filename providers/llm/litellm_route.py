"""LLM targets through litellm (``provider: litellm``), and the settings, request and cache
key every LLM route shares: openai, azure, anthropic and gemini subclass these classes in
agentv's own wire clients (``providers.llm.wire``), which replace only ``check`` and
``invoke``.

One class per provider kind, all sharing ``LLMProvider``:

    provider = AzureProvider(target)    # cheap: nothing imported, nothing resolved
    provider.check()                    # preflight: settings + env defaults, routing;
                                        #   ConfigError listing every missing variable
    response = await provider.invoke(request)   # one HTTP call, never retried here

Settings and env-var defaults are in ``providers.llm.settings``; error classification
(what the retry layer may retry) in ``providers.llm.errors``. litellm is imported on
first use only, offline (bundled price map) and quiet, and is called with
``num_retries=0, max_retries=0`` so the one retry layer (``providers.llm.retry``) is ours.
Its default aiohttp transport is kept: per-call CPU stays flat as concurrency grows.
Keys never reach ``Response.raw``, error messages or the cache.
"""
from __future__ import annotations

import asyncio
import logging
import os
import re
import time
from functools import lru_cache
from typing import Any

from agentv.providers.base import (
    BaseProvider,
    ConfigError,
    ProviderTimeout,
    Request,
    Response,
    Target,
    Usage,
)
from agentv.providers.facts import ProviderFacts
from agentv.providers.llm.errors import classify
from agentv.providers.llm.settings import (
    AnthropicSettings,
    AzureSettings,
    GeminiSettings,
    LiteLLMSettings,
    LLMConfig,
    LLMSettings,
    OpenAISettings,
    resolve,
)

_KEY_ENV = re.compile(r"(_API_KEY|_TOKEN)$")


@lru_cache(maxsize=1)
def load_litellm():
    """Import litellm once: offline price map, no debug banners, quiet loggers."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOG", "ERROR")
    import litellm

    litellm.suppress_debug_info = True
    litellm.set_verbose = False
    litellm.drop_params = True  # a param a model does not take is dropped, not a 400
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm"):
        logging.getLogger(name).setLevel(logging.ERROR)
    return litellm


def chat_messages(request: Request) -> list[dict[str, str]]:
    """The chat to send: ``request.chat``, or system prompt + question when it is empty.

    A ``tool`` turn without a tool call id is not valid on any API: sent as a user turn."""
    if request.chat:
        return [{"role": "user", "content": f"[tool result]\n{m['content']}"}
                if m["role"] == "tool" else {"role": m["role"], "content": m["content"]}
                for m in request.chat]
    messages = [{"role": "system", "content": request.system_prompt}] \
        if request.system_prompt else []
    return messages + [{"role": "user", "content": request.question}]


def llm_facts(settings: type[LLMSettings]) -> ProviderFacts:
    """An LLM route's facts: its settings model, and its key's environment variable."""
    key_env = settings.kind_spec().key_env
    return ProviderFacts("llm", settings=settings, secret_env=(key_env,) if key_env else ())


class LLMProvider(BaseProvider):
    kind = "litellm"
    facts = llm_facts(LiteLLMSettings)
    json_mode = False  # send response_format json_object for judge requests
    placeholder_key: str | None = None  # sent when no key is configured

    def __init__(self, target: Target):
        super().__init__(target)
        self._config: LLMConfig | None = None

    @property
    def config(self) -> LLMConfig:
        if self._config is None:
            model = self.facts.settings_model()
            self._config = resolve(self.target, self.kind, spec=getattr(model, "spec", None))
        return self._config

    # ---------------------------------------------------------------- preflight
    def check(self) -> None:
        config = self.config
        litellm = load_litellm()
        try:
            litellm.get_llm_provider(config.model, api_base=config.api_base)
        except Exception as err:  # noqa: BLE001 - any failure means "cannot route"
            first = str(err).splitlines()[0] if str(err) else type(err).__name__
            raise ConfigError(f"litellm cannot route model '{config.model}' ({first}); use "
                              "'<provider>/<model>', e.g. 'ollama/llama3'",
                              self.target.where, "model") from None
        self._check_env(litellm, config)

    def _check_env(self, litellm, config: LLMConfig) -> None:
        """Provider ``litellm``: API-key variables litellm itself needs for this model."""
        if self.kind != "litellm" or config.api_key:
            return
        try:
            found = litellm.validate_environment(config.model, api_base=config.api_base)
        except Exception:  # noqa: BLE001 - unknown providers have nothing to check
            return
        missing = [v for v in found.get("missing_keys") or [] if _KEY_ENV.search(v)]
        if missing:
            raise ConfigError(f"target '{self.name}' (provider litellm, model {config.model}) "
                              f"is missing: {', '.join(missing)} — set the environment "
                              "variable(s) (or .env) or the target's api_key",
                              self.target.where)

    # ---------------------------------------------------------------- request
    def request_params(self, request: Request) -> dict[str, Any]:
        """Everything that shapes the reply (no key, no transport settings): sent to
        litellm with the key added, and the material of the response-cache key."""
        c = self.config
        params: dict[str, Any] = {"model": c.model, "messages": chat_messages(request)}
        for name, value in (("api_base", c.api_base), ("api_version", c.api_version),
                            ("temperature", c.temperature), ("max_tokens", c.max_tokens)):
            if value is not None:
                params[name] = value
        params.update(c.extra)
        if self.json_mode and request.response_format == "json" and \
                any("json" in m["content"].lower() for m in params["messages"]):
            params["response_format"] = {"type": "json_object"}
        return params

    def cache_key_material(self, request: Request) -> dict[str, Any]:
        return {"provider": self.kind, **self.request_params(request)}

    async def invoke(self, request: Request) -> Response:
        c = self.config
        litellm = load_litellm()
        params = self.request_params(request)
        started = time.perf_counter()
        try:
            async with asyncio.timeout(c.timeout_s):
                reply = await litellm.acompletion(**params,
                                                  api_key=c.api_key or self.placeholder_key,
                                                  timeout=c.timeout_s, num_retries=0,
                                                  max_retries=0)
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            raise ProviderTimeout(f"{self.name} ({c.model}): no reply within "
                                  f"{c.timeout_s:g}s", details={"status": None,
                                                                "kind": "timeout"}) from None
        except Exception as err:  # noqa: BLE001 - classified for the retry layer
            raise classify(err, f"{self.name} ({c.model})", self.target.secrets) from None
        return self._response(reply, params["model"], (time.perf_counter() - started) * 1000)

    def _response(self, reply: Any, model: str, latency_ms: float) -> Response:
        choice = reply.choices[0] if reply.choices else None
        text = (choice.message.content if choice is not None else None) or ""
        return Response(
            text=text, output_messages=[{"role": "assistant", "content": text}],
            usage=_usage(reply), latency_ms=latency_ms,
            raw={"id": getattr(reply, "id", None), "model": getattr(reply, "model", None),
                 "litellm_model": model, "provider": self.kind,
                 "finish_reason": getattr(choice, "finish_reason", None)},
        )


def _usage(reply: Any) -> Usage:
    usage = getattr(reply, "usage", None)
    hidden = getattr(reply, "_hidden_params", None) or {}
    cost = hidden.get("response_cost")
    return Usage(input_tokens=getattr(usage, "prompt_tokens", None),
                 output_tokens=getattr(usage, "completion_tokens", None),
                 cost_usd=float(cost) if isinstance(cost, (int, float)) else None)


class AzureProvider(LLMProvider):
    """``azure`` / ``azure-openai``: endpoint, api_key, model (deployment), version."""

    kind = "azure"
    facts = llm_facts(AzureSettings)
    json_mode = True


class AnthropicProvider(LLMProvider):
    """``anthropic``: api_key (ANTHROPIC_API_KEY), model, optional base_url."""

    kind = "anthropic"
    facts = llm_facts(AnthropicSettings)


class GeminiProvider(LLMProvider):
    """``gemini`` / ``google``: api_key (GOOGLE_API_KEY), model (GOOGLE_GEMINI_MODEL)."""

    kind = "gemini"
    facts = llm_facts(GeminiSettings)


class OpenAIProvider(LLMProvider):
    """``openai``: api_key (OPENAI_API_KEY), model, base_url for compatible servers."""

    kind = "openai"
    facts = llm_facts(OpenAISettings)
    json_mode = True
    placeholder_key = "not-needed"  # a local server that checks no key (base_url set)


class LiteLLMProvider(LLMProvider):
    """``litellm``: any litellm model string; other settings pass through to litellm."""

    kind = "litellm"
