"""The one retry layer: exponential backoff with jitter, honouring Retry-After.

A server's ``Retry-After`` is honoured even beyond ``retry_max_delay_ms``, up to
``RETRY_AFTER_CEILING_S`` (10 minutes; logged when it exceeds the cap). The time spent
waiting between attempts is reported (``Response.wait_ms`` / ``err.wait_ms``).

Built from a target's typed settings (``ProviderSettings``: the retry fields, validated and
bounded by the model, AgentV's snake_case or camelCase spellings) and its provider's facts
(agents and commands: 2 retries, of timeouts only; LLMs: 3). Only ``ProviderError``s marked
retryable whose status is in ``retry_status_codes`` (or that have no status: timeouts,
dropped connections) are retried; 401/403 and other 4xx never are.
"""
from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, TypeVar

from agentv.providers.base import BaseProvider, ProviderError
from agentv.providers.base_settings import ProviderSettings

log = logging.getLogger("agentv.retry")
T = TypeVar("T")

DEFAULT_STATUS_CODES = (429, 500, 502, 503, 504)
RETRY_AFTER_CEILING_S = 600.0


@dataclass
class RetryPolicy:
    max_retries: int = 3
    initial_delay_ms: float = 1000
    max_delay_ms: float = 60000
    backoff_factor: float = 2
    status_codes: tuple[int, ...] = DEFAULT_STATUS_CODES
    timeouts_only: bool = False  # agent targets retry only timeouts
    sleep: Callable[[float], Awaitable[Any]] = field(default=asyncio.sleep, repr=False)

    @classmethod
    def from_config(cls, config: ProviderSettings | None, *, default_max_retries: int = 3,
                    timeouts_only: bool = False, max_retries: int | None = None
                    ) -> "RetryPolicy":
        """The policy a target's validated settings ask for; ``max_retries`` (the run's
        ``--max-retries``) overrides the setting."""
        asked: dict[str, Any] = {}
        if config is not None:
            codes = config.retry_status_codes
            asked = {"max_retries": config.max_retries,
                     "initial_delay_ms": config.retry_initial_delay_ms,
                     "max_delay_ms": config.retry_max_delay_ms,
                     "backoff_factor": config.retry_backoff_factor,
                     "status_codes": None if codes is None else tuple(codes)}
        if max_retries is not None:
            asked["max_retries"] = max_retries
        given = {k: v for k, v in asked.items() if v is not None}
        return cls(**{"max_retries": default_max_retries, **given}, timeouts_only=timeouts_only)

    @classmethod
    def for_provider(cls, provider: BaseProvider, max_retries: int | None = None
                     ) -> "RetryPolicy":
        """The policy of a built provider: its target's typed settings (ConfigError when
        they are invalid) and its facts' defaults."""
        facts = provider.facts
        return cls.from_config(provider.typed_settings, max_retries=max_retries,
                               default_max_retries=facts.default_max_retries,
                               timeouts_only=facts.retry_timeouts_only)

    def should_retry(self, err: BaseException) -> bool:
        if not isinstance(err, ProviderError) or not err.retryable:
            return False
        if self.timeouts_only:
            from agentv.providers.base import ProviderTimeout
            return isinstance(err, ProviderTimeout)
        return err.status is None or err.status in self.status_codes

    def delay_s(self, retry_index: int, err: ProviderError | None = None) -> float:
        """Delay before retry number ``retry_index`` (0-based), jittered to 75–125%."""
        base = self.initial_delay_ms * (self.backoff_factor ** retry_index)
        delay = min(min(base, self.max_delay_ms) * random.uniform(0.75, 1.25), self.max_delay_ms)
        if err is not None and err.retry_after is not None:
            asked = min(err.retry_after, RETRY_AFTER_CEILING_S) * 1000.0
            if asked > self.max_delay_ms:
                log.warning("server asked to retry after %.0fs, beyond retry_max_delay_ms "
                            "(%.0fs): waiting %.0fs (Retry-After is honoured up to %.0fs)",
                            err.retry_after, self.max_delay_ms / 1000, asked / 1000,
                            RETRY_AFTER_CEILING_S)
            delay = max(delay, asked)  # never sooner than the server asked
        return delay / 1000.0


async def call_with_retries(fn: Callable[[int], Awaitable[T]], policy: RetryPolicy,
                            label: str = "") -> tuple[T, int]:
    """Run ``fn(attempt)`` until it succeeds or retries run out; returns (value, attempts).

    The final error is re-raised with ``.attempts`` and ``.wait_ms`` (time slept between
    attempts, plus the time the attempts waited for a slot: ``limit_wait_ms`` of the
    errors, ``wait_ms`` of the value) set so the record can count tries; a successful
    value that has a ``wait_ms`` attribute gets it set too."""
    attempt = 1
    waited = 0.0
    while True:
        try:
            value = await fn(attempt)
        except Exception as err:  # noqa: BLE001 - classified below
            waited += getattr(err, "limit_wait_ms", 0.0) / 1000.0
            if attempt > policy.max_retries or not policy.should_retry(err):
                err.attempts = attempt  # type: ignore[attr-defined]
                err.wait_ms = round(waited * 1000, 3)  # type: ignore[attr-defined]
                raise
            delay = policy.delay_s(attempt - 1, err if isinstance(err, ProviderError) else None)
            status = getattr(err, "status", None)
            log.info("retry %s attempt %d failed (status=%s: %s); retrying in %.2fs",
                     label, attempt, status, err, delay)
            started = time.monotonic()
            await policy.sleep(delay)
            waited += time.monotonic() - started
            attempt += 1
            continue
        if hasattr(value, "wait_ms"):
            value.wait_ms = round(waited * 1000 + (value.wait_ms or 0.0), 3)
        return value, attempt


class RetryingProvider:
    """Wraps a provider so every ``invoke`` goes through the one retry layer.

    ``last_attempts`` is not kept here (concurrent calls); use ``invoke_counted``."""

    def __init__(self, provider, policy: RetryPolicy):
        self.provider = provider
        self.policy = policy
        self.name = provider.name
        self.kind = getattr(provider, "kind", "")

    def check(self) -> None:
        self.provider.check()

    async def invoke_counted(self, request):
        async def once(attempt: int):
            request.attempt = attempt
            if not log.isEnabledFor(logging.INFO):
                return await self.provider.invoke(request)
            started = time.perf_counter()
            response = await self.provider.invoke(request)
            log.info("call %s (%s) for %s [%s] attempt %d: %.0f ms%s", self.name, self.kind,
                     request.eval_id, request.purpose, attempt,
                     (time.perf_counter() - started) * 1000,
                     " (cached)" if getattr(response, "cached", False) else "")
            return response
        return await call_with_retries(once, self.policy, f"{self.name}:{request.eval_id}")

    async def invoke(self, request):
        response, _ = await self.invoke_counted(request)
        return response

    async def aclose(self) -> None:
        """Close what the wrapped provider opened (HTTP sessions); safe to call twice."""
        close = getattr(self.provider, "aclose", None)
        if close is not None:
            await close()
