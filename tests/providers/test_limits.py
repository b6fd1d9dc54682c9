"""The adaptive (AIMD) in-flight window of a target, and ``LimitedProvider`` around a call."""
from __future__ import annotations

import asyncio

import pytest

from agentv.providers.base import ProviderError, Request, Response
from agentv.providers.limits import AimdWindow, LimitedProvider, LocalSlots


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_429_halves_the_window_once_per_round_and_successes_grow_it_back():
    clock = Clock()
    window = AimdWindow("prod", 8, clock=clock)
    started = clock.now
    clock.now += 1
    window.throttled(started, None)
    window.throttled(started, None)  # the same round of calls: one cut
    assert window.limit == 4 and window.stats.rate_limited == 2
    clock.now += 1
    window.throttled(clock.now, None)  # a call started after the cut
    assert window.limit == 2 and window.stats.lowest == 2
    for _ in range(3):
        window.succeeded()
    assert window.limit == 3  # about one slot per window of successes
    for _ in range(100):
        window.succeeded()
    assert window.limit == 8  # never above the ceiling
    assert window.stats.line().startswith("prod throttled: window 8→2, 3 × 429, 0 s waiting")


def test_the_window_never_falls_below_one():
    window = AimdWindow("prod", 2)
    for _ in range(5):
        window.throttled(float("inf"), None)
    assert window.limit == 1


def test_few_remaining_requests_cut_the_window_before_a_429():
    window = AimdWindow("prod", 8)
    window.succeeded(remaining=1000)
    assert window.limit == 8
    window.succeeded(remaining=2)
    assert window.limit == 4 and window.stats.header_cuts == 1 and window.stats.throttled


def test_a_fixed_window_counts_429s_but_never_moves():
    window = AimdWindow("prod", 8, adaptive=False)
    window.throttled(float("inf"), 5.0)
    window.succeeded(remaining=0)
    assert window.limit == 8 and window.stats.rate_limited == 1 and window.paused_until == 0


def test_retry_after_pauses_new_calls_once_the_window_is_down_to_one():
    asyncio.run(_retry_after_pauses())


async def _retry_after_pauses():
    wide = AimdWindow("prod", 4)
    wide.throttled(await wide.acquire(), 5.0)  # a narrower window is enough: no pause
    assert wide.paused_until == 0 and wide.limit == 2
    window = AimdWindow("prod", 1)
    started = await window.acquire()
    window.throttled(started, 0.2)
    await window.release()
    began = asyncio.get_running_loop().time()
    await window.acquire()
    assert asyncio.get_running_loop().time() - began >= 0.15
    assert window.stats.waited_s >= 0.15


def test_calls_beyond_the_window_wait_for_a_slot():
    asyncio.run(_calls_beyond_the_window_wait_for_a_slot())


async def _calls_beyond_the_window_wait_for_a_slot():
    window = AimdWindow("prod", 2)
    await window.acquire()
    await window.acquire()
    third = asyncio.ensure_future(window.acquire())
    await asyncio.sleep(0.02)
    assert not third.done()
    await window.release()
    await asyncio.wait_for(third, 1)
    assert window.in_flight == 2


class Scripted:
    """A provider answering from a script: a Response, or a ProviderError to raise."""

    name, kind = "prod", "openai"

    def __init__(self, script: list) -> None:
        self.script, self.in_flight, self.max_in_flight = script, 0, 0

    async def invoke(self, request: Request) -> Response:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        await asyncio.sleep(0.01)
        self.in_flight -= 1
        answer = self.script.pop(0) if self.script else Response(text="ok")
        if isinstance(answer, BaseException):
            raise answer
        return answer


def test_limited_provider_holds_the_window_and_the_shared_slots():
    asyncio.run(_limited_provider_holds_the_window_and_the_shared_slots())


async def _limited_provider_holds_the_window_and_the_shared_slots():
    inner = Scripted([ProviderError("slow down", status=429, retryable=True)])
    limited = LimitedProvider(inner, AimdWindow("prod", 8), LocalSlots(3))
    with pytest.raises(ProviderError):
        await limited.invoke(Request(eval_id="c1", question="q"))
    assert limited.window.limit == 4 and limited.window.stats.rate_limited == 1
    await asyncio.gather(*(limited.invoke(Request(eval_id="c1", question="q")) for _ in range(12)))
    assert inner.max_in_flight == 3  # the shared limit's slots
    assert limited.window.in_flight == 0 and limited.window.limit > 4


def test_each_call_says_how_long_it_waited_for_a_shared_slot_and_the_run_in_all():
    """4 calls of 10 ms through 1 shared slot: the later ones wait for it, their responses
    carry ``wait_ms`` (errors ``limit_wait_ms``), and the target's line sums them up."""
    asyncio.run(_waits_are_recorded())


async def _waits_are_recorded():
    from agentv.providers.llm.retry import RetryingProvider, RetryPolicy
    inner = Scripted([Response(text="ok") for _ in range(3)]
                     + [ProviderError("bad request", status=400)])
    limited = LimitedProvider(inner, AimdWindow("prod", 8), LocalSlots(1), "prod-limit", 1)
    retrying = RetryingProvider(limited, RetryPolicy(max_retries=0))
    answers = await asyncio.gather(*(retrying.invoke(Request(eval_id=f"c{i}", question="q"))
                                     for i in range(4)), return_exceptions=True)
    waits = sorted(a.wait_ms if isinstance(a, Response) else a.wait_ms for a in answers)
    assert waits[0] < 5 and waits[-1] >= 25  # the last waited for three calls
    assert limited.waits.calls == 4 and limited.waits.waited >= 2  # (the 2nd: ~10 ms)
    line = limited.waits.line()
    assert line.startswith("prod waited on shared limit prod-limit (1 slot(s)): ")
    assert "s in all" in line and "of 4 call(s) waited, longest 0.0 s" in line
