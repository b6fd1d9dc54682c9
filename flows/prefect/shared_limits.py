"""A target's ``shared_limit`` as a Prefect global concurrency limit, shared by every run,
deployment and machine on the server (the UI's Concurrency page shows and edits it).

Each call holds one slot under a lease (``increment-with-lease``: a crashed run's slots come
back when the lease expires); the leases held longer than half their duration are renewed
together by one background loop. A lease a call is done with is kept for the run's next
call (waiting, or coming within ``SPARE_S``) up to ``MAX_USES`` calls, then given back: a busy
run asks the server about once per ``MAX_USES`` calls instead of twice per call, and the
run's end gives back every lease it kept. A full limit answers 423 with a Retry-After: the call
waits (at most ``POLL_CAP_S`` between tries) and asks again. ``per_minute`` adds a rate
limit (``<name>-per-minute``, slot decay ``per_minute/60`` per second) taken once per call.

Server unreachable (no ``PREFECT_API_URL``, refused, an error, or no answer in
``API_TIMEOUT_S``): one line says so and the run falls back to a limit of this process
(a ``slots`` semaphore).
"""
from __future__ import annotations

import asyncio
import base64
import os
import sys
import time
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Callable

from agentv.providers.limits import LocalSlots, SharedLimit, SlotPool

LEASE_S = 300.0  # the server's minimum is 60 s
POLL_CAP_S = 1.0
POLL_FLOOR_S = 0.05
BUSY = (429, 502, 503)
API_TIMEOUT_S = 30.0
LOCKED = 423
SPARE_S = 0.2  # a lease no call took for this long goes back to the server
MAX_USES = 32  # calls one lease serves before it goes back (the other runs' turn)


class PrefectSlots:
    """One shared limit's slots on the Prefect server (``say``: the console's line).

    It speaks Prefect's REST API over aiohttp (already loaded for the wire clients): the
    cases a head start runs must not import Prefect while the launcher imports it."""

    def __init__(self, limit: SharedLimit, say: Callable[[str], None]):
        self.limit, self.say = limit, say
        self.local = LocalSlots(limit.slots)
        self.offline = False
        self.leases: dict[str, float] = {}  # lease id -> when taken or last renewed
        self.spare: list[tuple[str, int, float]] = []  # (lease, calls served, when freed)
        self.server_calls = 0  # acquisitions and releases asked of the server
        self._http: Any = None  # aiohttp.ClientSession of the run's event loop
        self._api = ""
        self._ready: asyncio.Task[None] | None = None
        self._renewer: asyncio.Task[None] | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._asking = asyncio.Lock()
        self._freed = asyncio.Event()  # set when this process gives a slot back

    @property
    def rate_name(self) -> str:
        return f"{self.limit.name}-per-minute"

    @asynccontextmanager
    async def hold(self) -> AsyncIterator[None]:
        held = None if self.offline else await self._acquire()
        if held is None:
            async with self.local.hold():
                yield
            return
        try:
            yield
        finally:
            await self._done(*held)

    async def _acquire(self) -> tuple[str, int] | None:
        import aiohttp
        try:
            await self._connect()
            if self.limit.per_minute:
                await self._take("increment", {"names": [self.rate_name], "slots": 1,
                                               "mode": "rate_limit"})
            held = await self._take("increment-with-lease", {
                "names": [self.limit.name], "slots": 1, "mode": "concurrency",
                "lease_duration": LEASE_S}, self._reuse)
        except (OSError, TimeoutError, aiohttp.ClientError, ApiError) as err:
            self._go_offline(str(err) or type(err).__name__)
            return None
        if isinstance(held, tuple):
            return held
        lease = str(held["lease_id"])
        self.leases[lease] = time.monotonic()
        return lease, 1

    def _reuse(self) -> tuple[str, int] | None:
        """A lease this run kept, for one more call."""
        if not self.spare:
            return None
        lease, uses, _ = self.spare.pop()
        return lease, uses + 1

    async def _done(self, lease: str, uses: int) -> None:
        """Keep the lease for the run's next call, or give it back."""
        if uses < MAX_USES and self._http is not None and not self.offline:
            self.spare.append((lease, uses, time.monotonic()))
            self._freed.set()
        else:
            await self._release(lease)

    async def _take(self, path: str, body: dict[str, Any],
                    reuse: Callable[[], Any] = lambda: None) -> Any:
        """POST until the limit has room (423: wait the server's Retry-After, within
        ``POLL_FLOOR_S``..``POLL_CAP_S``), unless ``reuse`` finds a lease this run kept.
        One call of this process asks at a time and the others queue behind it here: the
        server sees one request per run (40 at once kept its SQLite busy for 30 s)."""
        kept = reuse()
        if kept is not None:
            return kept
        async with self._asking:
            while True:
                kept = reuse()
                if kept is not None:
                    return kept
                self._freed.clear()
                status, reply, retry_after = await self._post(path, body)
                if status != LOCKED:
                    return reply
                await self._until_freed(min(max(retry_after or POLL_CAP_S, POLL_FLOOR_S),
                                            POLL_CAP_S))

    async def _until_freed(self, delay: float) -> None:
        """Wait ``delay``, or less: a slot this process gives back is asked for at once."""
        try:
            await asyncio.wait_for(self._freed.wait(), delay)
        except TimeoutError:
            pass

    async def _post(self, path: str, body: dict[str, Any]) -> tuple[int, Any, float | None]:
        self.server_calls += 1
        return await self._call("POST", f"/v2/concurrency_limits/{path}", body)

    async def _call(self, method: str, path: str, body: dict[str, Any] | None = None
                    ) -> tuple[int, Any, float | None]:
        """One API call; a busy server (429, 502, 503, a dropped connection) is asked again
        for up to ``API_TIMEOUT_S``, then it counts as unreachable."""
        import aiohttp
        deadline = time.monotonic() + API_TIMEOUT_S
        while True:
            try:
                async with self._http.request(method, self._api + path, json=body) as resp:
                    status, after = resp.status, resp.headers.get("Retry-After")
                    reply = await resp.json(content_type=None) if status < 300 else None
            except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError) as err:
                if time.monotonic() >= deadline or isinstance(err, aiohttp.ClientConnectorError):
                    raise  # refused: unreachable at once
                status, after = BUSY[0], None  # a kept-alive connection the server closed
            if status in BUSY and time.monotonic() < deadline:
                await asyncio.sleep(POLL_FLOOR_S * 2)
                continue
            if status >= 400 and status not in (LOCKED, 404, 409):
                raise ApiError(f"HTTP {status} from {path}")
            return status, reply, float(after) if after else None

    async def _release(self, lease: str) -> None:
        """A lease taken on the server is given back there, even after the run went
        offline (a slow answer): only a failed release is left to the lease's expiry."""
        self.leases.pop(lease, None)
        if self._http is None:
            return
        try:
            await self._post("decrement-with-lease", {"lease_id": lease})
        except Exception as err:  # noqa: BLE001 - the lease expires on its own
            self._go_offline(str(err) or type(err).__name__)
        self._freed.set()

    async def _connect(self) -> None:
        """The HTTP session of this run, and the limit (created if missing), once."""
        if self._ready is None:
            self._ready = asyncio.ensure_future(self._open())
        await asyncio.shield(self._ready)

    async def _open(self) -> None:
        import aiohttp
        self._api = api_url()
        if not self._api:
            raise ApiError("no PREFECT_API_URL")
        self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=API_TIMEOUT_S),
                                           headers=auth_headers())
        await self._ensure(self.limit.name, self.limit.slots, 0.0)
        if self.limit.per_minute:
            await self._ensure(self.rate_name, self.limit.slots, self.limit.per_minute / 60.0)
        self._renewer = asyncio.ensure_future(self._renew())
        self._sweeper = asyncio.ensure_future(self._sweep())

    async def _ensure(self, name: str, slots: int, decay: float) -> None:
        status, _, _ = await self._call("GET", f"/v2/concurrency_limits/{name}")
        if status == 404:  # 409: another run created it first
            await self._call("POST", "/v2/concurrency_limits/", {
                "name": name, "limit": slots, "slot_decay_per_second": decay})

    async def _renew(self) -> None:
        """Every lease held for half its duration is renewed, all in one pass."""
        while True:
            await asyncio.sleep(LEASE_S / 4)
            due = [lease for lease, at in self.leases.items()
                   if time.monotonic() - at > LEASE_S / 2]
            for lease in due:
                await self._post(f"leases/{lease}/renew", {"lease_duration": LEASE_S})
                self.leases[lease] = time.monotonic()

    async def _sweep(self) -> None:
        """Kept leases no call took within ``SPARE_S`` go back to the server."""
        while True:
            await asyncio.sleep(SPARE_S / 2)
            await self._give_back(time.monotonic() - SPARE_S)

    async def _give_back(self, freed_before: float) -> None:
        old = [entry for entry in self.spare if entry[2] <= freed_before]
        self.spare = [entry for entry in self.spare if entry[2] > freed_before]
        for lease, _, _ in old:
            await self._release(lease)

    def _go_offline(self, why: str) -> None:
        if not self.offline:
            self.offline = True
            self.say(f"shared limit {self.limit.name}: Prefect server unreachable ({why}); "
                     f"using a local limit of {self.limit.slots} slot(s) for this run only")

    async def aclose(self) -> None:
        for task in (self._renewer, self._sweeper):
            if task is not None:
                task.cancel()
        self._renewer = self._sweeper = None
        await self._give_back(float("inf"))  # the run is over: every kept lease goes back
        http, self._http = self._http, None
        if http is not None:
            try:
                await http.close()
            except RuntimeError:
                pass  # opened on another event loop: its connections go with it


class ApiError(Exception):
    """The Prefect API answered with an error (or is not configured)."""


def api_url() -> str:
    """The Prefect API this process uses (the launcher puts it in the environment)."""
    url = os.environ.get("PREFECT_API_URL", "")
    if not url and "prefect.settings" in sys.modules:  # a deployment's worker: its profile
        from prefect.settings import PREFECT_API_URL
        url = PREFECT_API_URL.value() or ""
    return url.rstrip("/")


def auth_headers() -> dict[str, str]:
    """Prefect Cloud's API key or a self-hosted server's basic auth (never logged)."""
    key = os.environ.get("PREFECT_API_KEY")
    if key:
        return {"Authorization": f"Bearer {key}"}
    auth = os.environ.get("PREFECT_API_AUTH_STRING")
    if auth:
        return {"Authorization": "Basic " + base64.b64encode(auth.encode()).decode()}
    return {}


def prefect_pools(say: Callable[[str], None] | None = None
                  ) -> Callable[[SharedLimit], SlotPool]:
    """The run session's factory: each shared limit on the Prefect server."""
    def to_stderr(line: str) -> None:
        print(line, file=sys.stderr, flush=True)
    return lambda limit: PrefectSlots(limit, say or to_stderr)
