"""Per-target request limits: the adaptive (AIMD) in-flight window, the shared-limit slots
interface, and ``LimitedProvider``, which holds both around every call to a target.

``LimitedProvider`` sits under the retry layer: each attempt waits for a window slot and a
shared slot, and neither is held while the retry layer sleeps. A 429 (or a reply whose
``x-ratelimit-remaining-*`` headers say the budget is nearly spent) halves the window, once
per round of calls (calls that started before the last cut do not cut again); each success
grows it by ``1/window`` (about one slot per window of successes), up to the target's
workers. Once the window is down to one call, a ``Retry-After`` also pauses new calls to
the target until it has passed (the failed call itself waits in the retry layer).

No Prefect here: a shared limit's slots come through ``SlotPool`` (the run session injects
Prefect's global concurrency limit, or ``LocalSlots`` when the server is unreachable).
"""
from __future__ import annotations

import asyncio
import time
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any, AsyncIterator, Callable, Protocol

from pydantic import ConfigDict, Field

from agentv.providers.base import ProviderError, Request, Response
from agentv.providers.base_settings import Int, NumbersNotText


@dataclass(frozen=True)
class SharedLimit:
    """A target's ``shared_limit``: requests in flight across every run on the server."""

    name: str
    slots: int
    per_minute: int | None = None


class SharedLimitModel(NumbersNotText):
    """``shared_limit``: a Prefect global concurrency limit every run on the server shares."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")
    slots: Int = Field(ge=1, le=1000)
    per_minute: Int | None = Field(None, ge=1)


def shared_limit_of(value: Any) -> SharedLimit | None:
    """A target entry's ``shared_limit`` mapping, checked, as a ``SharedLimit``."""
    return None if value is None else SharedLimit(**SharedLimitModel.model_validate(
        dict(value)).model_dump())


class SlotPool(Protocol):
    """Slots of a shared limit; ``hold()`` holds one for the length of a call."""

    def hold(self) -> AbstractAsyncContextManager[None]: ...

    async def aclose(self) -> None: ...


class LocalSlots:
    """A shared limit's slots as a semaphore of this process (the fallback)."""

    def __init__(self, slots: int):
        self.semaphore = asyncio.Semaphore(slots)

    @asynccontextmanager
    async def hold(self) -> AsyncIterator[None]:
        async with self.semaphore:
            yield

    async def aclose(self) -> None:
        return None


@dataclass
class Throttling:
    """What a target's window went through: for the console and the run summary."""

    target: str
    start: int
    lowest: int
    rate_limited: int = 0  # 429 replies
    header_cuts: int = 0  # cuts asked by x-ratelimit-remaining-* headers
    waited_s: float = 0.0  # time calls waited for the cut window or a Retry-After

    @property
    def throttled(self) -> bool:
        return self.rate_limited > 0 or self.header_cuts > 0

    def line(self) -> str:
        parts = [f"window {self.start}→{self.lowest}", f"{self.rate_limited} × 429"]
        if self.header_cuts:
            parts.append(f"{self.header_cuts} × rate-limit header")
        parts.append(f"{self.waited_s:.0f} s waiting")
        return f"{self.target} throttled: " + ", ".join(parts)


@dataclass
class LimitWaits:
    """How long a target's calls waited for a slot (its window's and its shared limit's):
    for the run summary."""

    target: str
    limit: str = ""  # the shared limit's name ("": none)
    slots: int = 0
    calls: int = 0
    waited: int = 0  # calls that waited more than WAITED_S
    total_s: float = 0.0
    longest_s: float = 0.0

    def add(self, seconds: float) -> None:
        self.calls += 1
        self.total_s += seconds
        self.longest_s = max(self.longest_s, seconds)
        if seconds > WAITED_S:
            self.waited += 1

    def line(self) -> str:
        return (f"{self.target} waited on shared limit {self.limit} ({self.slots} slot(s)): "
                f"{self.total_s:.1f} s in all, {self.waited} of {self.calls} call(s) waited, "
                f"longest {self.longest_s:.1f} s")


WAITED_S = 0.01


def _note_wait(err: BaseException, waited: float | None) -> None:
    try:
        err.limit_wait_ms = round((waited or 0.0) * 1000, 3)  # type: ignore[attr-defined]
    except AttributeError:
        pass  # an exception type without a __dict__


class AimdWindow:
    """A target's in-flight window: at most ``ceiling`` calls; adaptive unless told not to
    (then a fixed window of ``ceiling``)."""

    def __init__(self, target: str, ceiling: int, adaptive: bool = True,
                 clock: Callable[[], float] = time.monotonic):
        self.ceiling, self.adaptive, self.clock = max(1, ceiling), adaptive, clock
        self.size = float(self.ceiling)
        self.in_flight = 0
        self.last_cut = float("-inf")
        self.paused_until = 0.0
        self.stats = Throttling(target, self.ceiling, self.ceiling)
        self._changed = asyncio.Condition()

    @property
    def limit(self) -> int:
        return max(1, int(self.size))

    async def acquire(self) -> float:
        """Wait for a slot; returns the call's start time (for ``throttled``)."""
        waited_from = self.clock()
        async with self._changed:
            while self.in_flight >= self.limit or self.clock() < self.paused_until:
                pause = self.paused_until - self.clock()
                try:
                    await asyncio.wait_for(self._changed.wait(), pause if pause > 0 else None)
                except TimeoutError:
                    pass
            self.in_flight += 1
        now = self.clock()
        if self.stats.throttled:
            self.stats.waited_s += now - waited_from
        return now

    async def release(self) -> None:
        async with self._changed:
            self.in_flight -= 1
            self._changed.notify_all()

    def succeeded(self, remaining: int | None = None) -> None:
        """A reply came; ``remaining``: its lowest ``x-ratelimit-remaining-*`` value."""
        if not self.adaptive:
            return
        if remaining is not None and remaining < self.limit:
            if self._cut(self.clock()):
                self.stats.header_cuts += 1
            return
        self.size = min(float(self.ceiling), self.size + 1.0 / self.size)

    def throttled(self, started: float, retry_after: float | None) -> None:
        """A 429 for a call that started at ``started``."""
        self.stats.rate_limited += 1
        if not self.adaptive:
            return
        if started >= self.last_cut:
            self._cut(self.clock())
        if retry_after and self.size <= 1:  # even one call at a time is too much
            self.paused_until = max(self.paused_until, self.clock() + retry_after)

    def _cut(self, now: float) -> bool:
        if now - self.last_cut < 0 or self.size <= 1:
            return False
        self.size = max(1.0, self.size / 2)
        self.last_cut = now
        self.stats.lowest = min(self.stats.lowest, self.limit)
        return True


class LimitedProvider:
    """Wraps a provider: every ``invoke`` holds a slot of the target's window and, with a
    ``shared_limit``, a slot of the shared pool."""

    def __init__(self, provider: Any, window: AimdWindow, shared: SlotPool | None = None,
                 shared_name: str = "", shared_slots: int = 0):
        self.provider, self.window, self.shared = provider, window, shared
        self.waits = LimitWaits(provider.name, shared_name, shared_slots)
        self.name = provider.name
        self.kind = getattr(provider, "kind", "")

    def __getattr__(self, attr: str) -> Any:  # is_agent, target, typed_settings, ...
        if attr in ("provider", "window", "shared", "waits"):
            raise AttributeError(attr)
        return getattr(self.provider, attr)

    def check(self) -> None:
        self.provider.check()

    async def invoke(self, request: Request) -> Response:
        """The call, once it holds a window slot and a shared slot; the time it waited for
        them goes on the response (``wait_ms``) or the error (``limit_wait_ms``)."""
        asked = time.monotonic()
        started = await self.window.acquire()
        waited: float | None = None
        try:
            if self.shared is None:
                waited = time.monotonic() - asked
                response = await self.provider.invoke(request)
            else:
                async with self.shared.hold():
                    waited = time.monotonic() - asked
                    response = await self.provider.invoke(request)
        except Exception as err:
            _note_wait(err, waited)
            if isinstance(err, ProviderError) and err.status == 429:
                self.window.throttled(started, err.retry_after)
            raise
        finally:
            await self.window.release()
            if waited is not None:
                self.waits.add(waited)
        self.window.succeeded(response.rate_limit_remaining)
        response.wait_ms = round((waited or 0.0) * 1000, 3)
        return response

    async def aclose(self) -> None:
        close = getattr(self.provider, "aclose", None)
        if close is not None:
            await close()
        if self.shared is not None:
            await self.shared.aclose()
