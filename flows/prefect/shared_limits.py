"""A target's ``shared_limit`` as a Prefect global concurrency limit, shared by every run,
deployment and machine on the server (the UI's Concurrency page shows and edits it).

Each call holds one slot under a lease (``increment-with-lease``: a crashed run's slots come
back when the lease expires). Prefect's server does not queue waiters: a full limit answers
423 and the caller asks again later. So that runs take turns, every run asks the same way:
- one call of a run asks at a time; the run's other calls wait behind it, in arrival order;
- a run that cannot take a slot at once (denied, or told to pause) counts itself in a
  second limit, ``<name>-waiting`` (one slot per waiting run, under a lease of its own),
  until no call of it waited for ``UNWAIT_AFTER_S``;
- while another run is counted there, a run's call does not ask at once (nor keep a slot
  for its next call): it waits a jittered pause like the waiting run, so a run whose call
  just ended cannot take the freed slot back before the waiting run had its turn;
- the pause is one rule in every run: 0.5–1.5× the mean time a call holds its slot over
  the slots, times the runs counted waiting (together they ask about once per freed
  slot), within ``POLL_FLOOR_S``..``POLL_CAP_S``; after a pause a run reads the limit and
  asks only when it shows a free slot (a denied ask is two writes to the server's
  database; a Prefect server on SQLite asked too often answers "database is locked");
- a run alone asks at once and keeps a lease its call is done with for its next call, up
  to ``SPARE_S`` (0.1 s calls on 3 slots: 22–26 calls/s instead of 11–13).
``per_minute`` adds a rate limit (``<name>-per-minute``, slot decay ``per_minute/60`` per
second) taken once per call.

Server unreachable (no ``PREFECT_API_URL``, refused, an error, or no answer in
90 s): one line says so and the run falls back to a limit of this process
(a ``slots`` semaphore).
"""
from __future__ import annotations

import asyncio
import random
import sys
import time
from contextlib import asynccontextmanager, suppress
from typing import Any, AsyncIterator, Callable

from agentv.flows.prefect.limits_api import LOCKED, ApiError, LimitsApi
from agentv.providers.limits import LocalSlots, SharedLimit, SlotPool

LEASE_S = 300.0  # a call's slot (the server's minimum is 60 s)
WAITING_LEASE_S = 60.0  # a run's place in <name>-waiting: a crashed run's goes in a minute
WAITING_LIMIT = 100_000  # runs <name>-waiting can count
WAITING_TTL_S = 0.25  # how long a read of <name>-waiting is trusted
UNWAIT_AFTER_S = 0.5  # a run none of whose calls waited for this long leaves <name>-waiting
POLL_FLOOR_S, POLL_CAP_S = 0.2, 1.0  # bounds of the mean pause between two asks
POLL_START_S = 0.1  # the mean pause before any call of the run ended
SPARE_S = 0.2  # a lease kept while alone goes back if no call of the run took it by then


def jittered(mean: float) -> float:
    return mean * random.uniform(0.5, 1.5)


class PrefectSlots:
    """One shared limit's slots on the Prefect server (``say``: the console's line)."""

    def __init__(self, limit: SharedLimit, say: Callable[[str], None]):
        self.limit, self.say = limit, say
        self.local = LocalSlots(limit.slots)
        self.api = LimitsApi()
        self.offline = False
        self.leases: dict[str, tuple[float, float]] = {}  # lease -> (renewed at, duration)
        self.spare: list[tuple[str, float]] = []  # (lease, kept since): kept while alone
        self._ready: asyncio.Task[None] | None = None
        self._background: list[asyncio.Task[None]] = []
        self._asking = asyncio.Lock()  # FIFO: one call of this run asks at a time
        self._kept = asyncio.Event()  # a lease was kept: the asking call takes it at once
        self._callers = 0  # calls of this run waiting for a slot
        self._last_win = float("-inf")  # when this run's last ask got a slot
        self._waiting_lease: str | None = None  # this run's place in <name>-waiting
        self._unwait: asyncio.Task[None] | None = None
        self._others = (float("-inf"), False)  # (read at, another run waits)
        self._counted = 1  # runs counted waiting at the last read
        self._held_s: float | None = None  # mean time a call held its slot (moving)

    @property
    def server_calls(self) -> int:
        return self.api.calls

    @property
    def waiting_name(self) -> str:
        return f"{self.limit.name}-waiting"

    @property
    def rate_name(self) -> str:
        return f"{self.limit.name}-per-minute"

    @asynccontextmanager
    async def hold(self) -> AsyncIterator[None]:
        lease = None if self.offline else await self._acquire()
        if lease is None:
            async with self.local.hold():
                yield
            return
        taken = time.monotonic()
        try:
            yield
        finally:
            held = time.monotonic() - taken
            self._held_s = held if self._held_s is None else 0.8 * self._held_s + 0.2 * held
            await self._done(lease)

    async def _acquire(self) -> str | None:
        import aiohttp
        arrived = time.monotonic()
        self._callers += 1
        try:
            await self._connect()
            if self.limit.per_minute:
                await self._take("increment", {"names": [self.rate_name], "slots": 1,
                                               "mode": "rate_limit"}, arrived, reuse=False)
            held = await self._take("increment-with-lease", {
                "names": [self.limit.name], "slots": 1, "mode": "concurrency",
                "lease_duration": LEASE_S}, arrived, reuse=True)
        except (OSError, TimeoutError, aiohttp.ClientError, ApiError) as err:
            self._go_offline(str(err) or type(err).__name__)
            return None
        finally:
            self._callers -= 1
            if self._callers == 0 and self._waiting_lease and self._unwait is None:
                self._unwait = asyncio.ensure_future(self._leave_line())
        if isinstance(held, str):
            return held  # a lease this run kept
        lease = str(held["lease_id"])
        self.leases[lease] = (time.monotonic(), LEASE_S)
        return lease

    async def _take(self, path: str, body: dict[str, Any], arrived: float, reuse: bool) -> Any:
        """A slot: a lease this run kept (while alone), else POSTs until the limit has
        room. The first ask waits a pause if another run waits, unless this call already
        waited when the run's last ask got a slot (then a freed slot is nobody's yet).
        After a pause the limit is read first and asked only when it shows a free slot: a
        read never waits for the database's write lock, a denied ask takes it twice."""
        async with self._asking:
            paused = False
            if arrived >= self._last_win and await self._others_wait():
                await self._wait_in_line()
                await self._pause()
                paused = True
            while True:
                kept = await self._kept_lease() if reuse else None
                if kept is not None:
                    return kept
                if not (paused and reuse and await self._full()):
                    status, reply = await self.api.post(path, body)
                    if status != LOCKED:
                        self._last_win = time.monotonic()
                        return reply
                await self._wait_in_line()
                await self._pause()
                paused = True

    async def _full(self) -> bool:
        limit = await self.api.read(self.limit.name)
        return limit is not None and int(limit["active_slots"]) >= int(limit["limit"])

    async def _pause(self) -> None:
        """A jittered pause (the same for every run); a lease this run keeps ends it."""
        self._kept.clear()
        with suppress(TimeoutError):
            await asyncio.wait_for(self._kept.wait(), jittered(self.pause_s))

    @property
    def pause_s(self) -> float:
        if self._held_s is None:
            return POLL_START_S
        mean = self._held_s / self.limit.slots * max(1, self._counted)
        return min(max(mean, POLL_FLOOR_S), POLL_CAP_S)

    async def _others_wait(self) -> bool:
        """Whether another run is counted in ``<name>-waiting`` (then this run's kept
        leases go back)."""
        read_at, others = self._others
        if time.monotonic() - read_at >= WAITING_TTL_S:
            counted = (await self.api.read(self.waiting_name) or {}).get("active_slots", 0)
            self._counted = int(counted)
            others = self._counted - (1 if self._waiting_lease else 0) > 0
            self._others = (time.monotonic(), others)
        if others and self.spare:
            await self._give_back(float("inf"))
        return others

    async def _kept_lease(self) -> str | None:
        if not self.spare or await self._others_wait() or not self.spare:
            return None
        return self.spare.pop()[0]

    async def _done(self, lease: str) -> None:
        """A call's lease: kept for the run's next call while no other run waits, else
        given back."""
        try:
            alone = not self.offline and not await self._others_wait()
        except Exception:  # noqa: BLE001 - the release below says what went wrong
            alone = False
        if alone and self.api.http is not None:
            self.spare.append((lease, time.monotonic()))
            self._kept.set()
        else:
            await self._release(lease)

    async def _wait_in_line(self) -> None:
        """Count this run in ``<name>-waiting`` (once, until none of its calls waits)."""
        if self._unwait is not None:
            self._unwait.cancel()
            self._unwait = None
        if self._waiting_lease is None:
            status, reply = await self.api.post("increment-with-lease", {
                "names": [self.waiting_name], "slots": 1, "mode": "concurrency",
                "lease_duration": WAITING_LEASE_S})
            if status < 300 and reply:
                self._waiting_lease = str(reply["lease_id"])
                self.leases[self._waiting_lease] = (time.monotonic(), WAITING_LEASE_S)

    async def _leave_line(self) -> None:
        await asyncio.sleep(UNWAIT_AFTER_S)
        self._unwait = None  # from here on it runs to its end
        if self._callers == 0 and self._waiting_lease is not None:
            lease, self._waiting_lease = self._waiting_lease, None
            await self._release(lease)

    async def _release(self, lease: str) -> None:
        """A lease taken on the server is given back there, even after the run went
        offline (a slow answer): only a failed release is left to the lease's expiry."""
        self.leases.pop(lease, None)
        if self.api.http is None:
            return
        try:
            await self.api.post("decrement-with-lease", {"lease_id": lease})
        except Exception as err:  # noqa: BLE001 - the lease expires on its own
            self._go_offline(str(err) or type(err).__name__)

    async def _give_back(self, kept_before: float) -> None:
        old = [lease for lease, since in self.spare if since <= kept_before]
        self.spare = [(lease, since) for lease, since in self.spare if since > kept_before]
        for lease in old:
            await self._release(lease)

    async def _connect(self) -> None:
        """The HTTP session of this run, and the limits (created if missing), once."""
        if self._ready is None:
            self._ready = asyncio.ensure_future(self._open())
        await asyncio.shield(self._ready)

    async def _open(self) -> None:
        self.api.open()
        limits = [self.api.ensure(self.limit.name, self.limit.slots),
                  self.api.ensure(self.waiting_name, WAITING_LIMIT)]
        if self.limit.per_minute:
            limits.append(self.api.ensure(self.rate_name, self.limit.slots,
                                          self.limit.per_minute / 60))
        await asyncio.gather(*limits)
        self._background = [asyncio.ensure_future(self._renew()),
                            asyncio.ensure_future(self._sweep())]

    async def _renew(self) -> None:
        """Every lease held for half its duration is renewed, all in one pass."""
        while True:
            await asyncio.sleep(WAITING_LEASE_S / 4)
            due = [(lease, ttl) for lease, (at, ttl) in list(self.leases.items())
                   if time.monotonic() - at > ttl / 2]
            for lease, ttl in due:
                await self.api.post(f"leases/{lease}/renew", {"lease_duration": ttl})
                if lease in self.leases:
                    self.leases[lease] = (time.monotonic(), ttl)

    async def _sweep(self) -> None:
        """Kept leases no call took within ``SPARE_S`` go back to the server."""
        while True:
            await asyncio.sleep(SPARE_S / 2)
            await self._give_back(time.monotonic() - SPARE_S)

    def _go_offline(self, why: str) -> None:
        if not self.offline:
            self.offline = True
            self.say(f"shared limit {self.limit.name}: Prefect server unreachable ({why}); "
                     f"using a local limit of {self.limit.slots} slot(s) for this run only")

    async def aclose(self) -> None:
        for task in (*self._background, self._unwait):
            if task is not None:
                task.cancel()
        self._background, self._unwait = [], None
        await self._give_back(float("inf"))  # the run is over: every kept lease goes back
        lease, self._waiting_lease = self._waiting_lease, None
        if lease is not None:
            await self._release(lease)  # and it waits no more
        await self.api.aclose()


def prefect_pools(say: Callable[[str], None] | None = None
                  ) -> Callable[[SharedLimit], SlotPool]:
    """The run session's factory: each shared limit on the Prefect server."""
    def to_stderr(line: str) -> None:
        print(line, file=sys.stderr, flush=True)
    return lambda limit: PrefectSlots(limit, say or to_stderr)
