"""Settings of the litellm-backed targets: aliases, env-var defaults, validation.

No litellm here (``agentv validate`` and ``--help`` import nothing heavy). ``resolve``
turns a ``Target`` into an ``LLMConfig`` or raises one ``ConfigError`` that lists every
missing variable at once.

Settings (snake_case or camelCase):
  model, api_key, base_url (azure: endpoint), version (azure API version),
  temperature, max_output_tokens, timeout_seconds, plus top_p, stop, seed,
  presence_penalty, frequency_penalty, reasoning_effort, extra_headers.
  Provider ``litellm`` passes every other non-retry setting to litellm unchanged.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping
from urllib.parse import urlparse

from pydantic import ValidationInfo, field_validator

from agentv.providers.base import ConfigError, Target
from agentv.providers.base_settings import Float, Int, ProviderSettings, seconds, setting_field

DEFAULT_TIMEOUT_S = 120.0
AZURE_DEFAULT_VERSION = "2024-12-01-preview"
GEMINI_DEFAULT_MODEL = "gemini-2.5-flash"

ALIASES: dict[str, tuple[str, ...]] = {
    "model": ("model", "deployment", "deployment_name", "deploymentName"),
    "api_key": ("api_key", "apiKey"),
    "base_url": ("base_url", "baseUrl", "api_base", "apiBase", "endpoint"),
    "version": ("version", "api_version", "apiVersion"),
    "temperature": ("temperature",),
    "max_output_tokens": ("max_output_tokens", "maxOutputTokens", "max_tokens", "maxTokens"),
    "timeout_seconds": ("timeout_seconds", "timeoutSeconds", "timeout"),
}
PASS_THROUGH = ("top_p", "stop", "seed", "presence_penalty", "frequency_penalty",
                "reasoning_effort", "extra_headers")
RETRY_KEYS = {"max_retries", "maxRetries", "retry_initial_delay_ms", "retryInitialDelayMs",
              "retry_max_delay_ms", "retryMaxDelayMs", "retry_backoff_factor",
              "retryBackoffFactor", "retry_status_codes", "retryStatusCodes"}
AGENTV_KEYS = {"verbose", "workers", "judge_target", "provider_batching"}


@dataclass(frozen=True)
class KindSpec:
    """How one provider kind finds its settings."""

    prefix: str  # litellm route prefix, e.g. "azure/"
    key_env: str | None = None
    model_env: str | None = None
    base_env: str | None = None
    default_model: str | None = None
    base_required: bool = False
    key_required: bool = True


SPECS: dict[str, KindSpec] = {
    "azure": KindSpec("azure/", "AZURE_OPENAI_API_KEY", "AZURE_DEPLOYMENT_NAME",
                      "AZURE_OPENAI_ENDPOINT", base_required=True),
    "anthropic": KindSpec("anthropic/", "ANTHROPIC_API_KEY"),
    "gemini": KindSpec("gemini/", "GOOGLE_API_KEY", "GOOGLE_GEMINI_MODEL",
                       default_model=GEMINI_DEFAULT_MODEL),
    "openai": KindSpec("openai/", "OPENAI_API_KEY"),
    "litellm": KindSpec("", key_required=False),
}


@dataclass
class LLMConfig:
    kind: str
    model: str  # the litellm model string, e.g. "azure/my-deployment"
    api_key: str | None = None
    api_base: str | None = None
    api_version: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    extra: dict[str, Any] = field(default_factory=dict)


def setting(settings: Mapping[str, Any], name: str) -> Any:
    """The first non-empty value among a setting's aliases."""
    for alias in ALIASES.get(name, (name,)):
        value = settings.get(alias)
        if value is not None and value != "":
            return value
    return None


def _from_env(settings: Mapping[str, Any], name: str, env_var: str | None,
              env: Mapping[str, str]) -> Any:
    value = setting(settings, name)
    if value is None and env_var:
        value = env.get(env_var) or None
    return value


def _missing_name(name: str, env_var: str | None) -> str:
    return env_var if env_var else f"setting '{name}'"


def _number(target: Target, name: str, value: Any, *, integer: bool = False,
            positive: bool = False) -> float | int | None:
    if value is None:
        return None
    try:
        if isinstance(value, bool):
            raise ValueError
        number = int(value) if integer else float(value)
        if integer and float(value) != number:
            raise ValueError
    except (TypeError, ValueError):
        kind = "a whole number" if integer else "a number"
        raise ConfigError(f"must be {kind}, got {value!r}", target.where, name) from None
    if number < 0 or (positive and number == 0):
        raise ConfigError(f"must be {'positive' if positive else 'non-negative'}, got {value!r}",
                          target.where, name)
    return number


def _whole(value: float | int | None) -> int | None:
    return None if value is None else int(value)


def check_url(target: Target, value: Any, name: str = "base_url") -> str:
    parsed = urlparse(value) if isinstance(value, str) else None
    if parsed is None or parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ConfigError(f"not a URL: {value!r} (expected http(s)://host[:port][/path])",
                          target.where, name)
    return value.rstrip("/")


def _model_string(spec: KindSpec, model: Any, target: Target) -> str:
    if not isinstance(model, str):
        raise ConfigError(f"must be a string, got {model!r}", target.where, "model")
    if spec.prefix and not model.startswith(spec.prefix):
        return spec.prefix + model
    return model


def _extra(kind: str, settings: Mapping[str, Any]) -> dict[str, Any]:
    if kind != "litellm":
        return {k: settings[k] for k in PASS_THROUGH if settings.get(k) is not None}
    known = {a for aliases in ALIASES.values() for a in aliases} | RETRY_KEYS | AGENTV_KEYS
    return {k: v for k, v in settings.items() if k not in known and v is not None}


def _api_version(kind: str, settings: Mapping[str, Any], env: Mapping[str, str]) -> str | None:
    version = setting(settings, "version")
    if kind == "azure":
        version = version or env.get("AZURE_OPENAI_API_VERSION") or AZURE_DEFAULT_VERSION
    return None if version is None else str(version)


def resolve(target: Target, kind: str, env: Mapping[str, str] | None = None,
            spec: KindSpec | None = None) -> LLMConfig:
    """Target settings + env-var defaults → LLMConfig; one ConfigError lists all gaps.
    ``spec``: the kind's, when it is not one of ``SPECS`` (a provider added later)."""
    env = os.environ if env is None else env
    spec, settings = spec or SPECS[kind], target.settings
    base = _from_env(settings, "base_url", spec.base_env, env)
    key = _from_env(settings, "api_key", spec.key_env, env)
    model = _from_env(settings, "model", spec.model_env, env) or spec.default_model
    missing = []
    if base is None and spec.base_required:
        missing.append(_missing_name("endpoint", spec.base_env))
    key_optional = not spec.key_required or (kind == "openai" and base is not None)
    if key is None and not key_optional:  # a local OpenAI-compatible server may need none
        missing.append(_missing_name("api_key", spec.key_env))
    if model is None:
        missing.append(_missing_name("model", spec.model_env))
    if missing:
        raise ConfigError(f"target '{target.name}' (provider {target.provider}) is missing: "
                          f"{', '.join(missing)} — set the environment variable(s) (or .env) "
                          "or the target's settings", target.where)
    if key and key not in target.secrets:
        target.secrets.append(key)  # keys from env defaults are redacted too
    return LLMConfig(
        kind=kind, model=_model_string(spec, model, target), api_key=key,
        api_base=check_url(target, base) if base is not None else None,
        api_version=_api_version(kind, settings, env),
        temperature=_number(target, "temperature", setting(settings, "temperature")),
        max_tokens=_whole(_number(target, "max_output_tokens",
                                  setting(settings, "max_output_tokens"), integer=True,
                                  positive=True)),
        timeout_s=_number(target, "timeout_seconds", setting(settings, "timeout_seconds"),
                          positive=True) or DEFAULT_TIMEOUT_S,
        extra=_extra(kind, settings),
    )


# ------------------------------------------------------------------ typed settings models

class LLMSettings(ProviderSettings):
    """Settings of the LLM targets (azure, anthropic, gemini, openai, litellm)."""

    kind: ClassVar[str] = "litellm"
    #: where the kind finds its key, model and endpoint; None: ``SPECS[kind]``
    spec: ClassVar[KindSpec | None] = None
    model: str | None = setting_field(*ALIASES["model"], description="Model or deployment name")
    api_key: str | None = setting_field(*ALIASES["api_key"], secret=True, description="API key")
    base_url: str | None = setting_field(*ALIASES["base_url"], url=True,
                                         description="http(s) endpoint")
    version: str | None = setting_field(*ALIASES["version"], description="API version (azure)")
    temperature: Float | None = setting_field("temperature", ge=0, le=2)
    max_output_tokens: Int | None = setting_field(*ALIASES["max_output_tokens"], ge=1)
    timeout_seconds: Float | None = seconds(*ALIASES["timeout_seconds"])
    top_p: Float | None = setting_field("top_p", "topP", ge=0, le=1)
    stop: str | list[str] | None = setting_field("stop")
    seed: Int | None = setting_field("seed")
    presence_penalty: Float | None = setting_field("presence_penalty", "presencePenalty", ge=-2,
                                                   le=2)
    frequency_penalty: Float | None = setting_field("frequency_penalty", "frequencyPenalty", ge=-2,
                                              le=2)
    reasoning_effort: str | None = setting_field("reasoning_effort", "reasoningEffort")
    extra_headers: dict[str, str] | None = setting_field("extra_headers", "extraHeaders",
                                                         secret=True)

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        parsed = urlparse(value) if isinstance(value, str) else None
        if value is not None and (parsed is None or parsed.scheme not in ("http", "https")
                                  or not parsed.hostname):
            raise ValueError("not a URL (expected http(s)://host[:port][/path])")
        return value

    @field_validator("model", "version", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
            else value

    @classmethod
    def kind_spec(cls) -> KindSpec:
        return cls.spec or SPECS[cls.kind]

    def missing_env(self, env: Mapping[str, str]) -> list[str]:
        spec = self.kind_spec()
        missing = []
        if self.base_url is None and spec.base_required and not env.get(spec.base_env or ""):
            missing.append(spec.base_env or "endpoint")
        key_optional = not spec.key_required or (self.kind == "openai"
                                                 and self.base_url is not None)
        if self.api_key is None and not key_optional and not env.get(spec.key_env or ""):
            missing.append(spec.key_env or "api_key")
        if (self.model is None and spec.default_model is None
                and not env.get(spec.model_env or "")):
            missing.append(spec.model_env or "model")
        return missing


class AzureSettings(LLMSettings):
    kind: ClassVar[str] = "azure"


class AnthropicSettings(LLMSettings):
    kind: ClassVar[str] = "anthropic"


class GeminiSettings(LLMSettings):
    kind: ClassVar[str] = "gemini"


class OpenAISettings(LLMSettings):
    kind: ClassVar[str] = "openai"

    @field_validator("base_url")
    @classmethod
    def _one_authorization(cls, value: str | None, info: ValidationInfo) -> str | None:
        """A base_url's ``user:password@`` is sent as Basic auth, in the header the key's
        ``Bearer`` goes in: both at once cannot be sent."""
        if value and info.data.get("api_key") and "@" in urlparse(value).netloc:
            raise ValueError("has a user:password@ (sent as HTTP Basic auth) and api_key is "
                             "set (sent as Bearer): both need the Authorization header; "
                             "keep one")
        return value


class LiteLLMSettings(LLMSettings):
    """Every other key goes to litellm unchanged."""

    kind: ClassVar[str] = "litellm"
    extras_pass_through: ClassVar[bool] = True
