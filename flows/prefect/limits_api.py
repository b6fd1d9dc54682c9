"""Prefect's global concurrency limits over REST (``/v2/concurrency_limits``), spoken with
aiohttp (already loaded for the wire clients): the cases a head start runs must not import
Prefect while the launcher imports it."""
from __future__ import annotations

import asyncio
import base64
import os
import sys
import time
from typing import Any

BUSY = (429, 502, 503)
IN_FLIGHT = 2  # requests of one run at once: a Prefect server on SQLite has 15 connections
API_TIMEOUT_S = 30.0  # one request, and a busy server's retries
SLOW_GRACE_S = 60.0  # a request not answered is asked again for this much longer
LOCKED = 423


class ApiError(Exception):
    """The Prefect API answered with an error (or is not configured)."""


class LimitsApi:
    """One run's HTTP session to the limits API (opened on the run's event loop)."""

    def __init__(self) -> None:
        self.http: Any = None  # aiohttp.ClientSession
        self.api = ""
        self.calls = 0  # requests made (reads, takes, denied asks, releases)
        self._in_flight = asyncio.Semaphore(IN_FLIGHT)

    def open(self) -> None:
        import aiohttp
        self.api = api_url()
        if not self.api:
            raise ApiError("no PREFECT_API_URL")
        self.http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=API_TIMEOUT_S),
                                          headers=auth_headers())

    async def post(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        return await self.call("POST", f"/v2/concurrency_limits/{path}", body)

    async def read(self, name: str) -> dict[str, Any] | None:
        """A limit (``active_slots``, ``avg_slot_occupancy_seconds``, ...), None if missing."""
        status, reply = await self.call("GET", f"/v2/concurrency_limits/{name}")
        return reply if status == 200 else None

    async def ensure(self, name: str, slots: int, decay: float = 0.0) -> None:
        if await self.read(name) is None:  # 409 below: another run created it first
            await self.call("POST", "/v2/concurrency_limits/", {
                "name": name, "limit": slots, "slot_decay_per_second": decay})

    async def call(self, method: str, path: str, body: dict[str, Any] | None = None
                   ) -> tuple[int, Any]:
        """One API call; a busy server (429, 502, 503, a dropped connection, no answer) is
        asked again for up to ``API_TIMEOUT_S + SLOW_GRACE_S``, then it counts as
        unreachable: a Prefect server on SQLite with two runs' flows to record answers 503
        ("database is locked", after its 60 s busy timeout) or nothing for a while."""
        async with self._in_flight:
            return await self._call(method, path, body)

    async def _call(self, method: str, path: str, body: dict[str, Any] | None
                    ) -> tuple[int, Any]:
        import aiohttp
        self.calls += 1
        deadline = time.monotonic() + API_TIMEOUT_S
        while True:
            try:
                async with self.http.request(method, self.api + path, json=body) as resp:
                    status = resp.status
                    reply = await resp.json(content_type=None) if status < 300 else None
            except TimeoutError:  # a server out of database connections: a while longer
                if time.monotonic() >= deadline + SLOW_GRACE_S:
                    raise ApiError(f"no answer from {path} in "
                                   f"{API_TIMEOUT_S + SLOW_GRACE_S:.0f} s") from None
                continue
            except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError) as err:
                if time.monotonic() >= deadline or isinstance(err, aiohttp.ClientConnectorError):
                    raise  # refused: unreachable at once
                status = BUSY[0]  # a kept-alive connection the server closed
            if status in BUSY and time.monotonic() < deadline + SLOW_GRACE_S:
                await asyncio.sleep(0.5)
                continue
            if status >= 400 and status not in (LOCKED, 404, 409):
                raise ApiError(f"HTTP {status} from {path}")
            return status, reply

    async def aclose(self) -> None:
        http, self.http = self.http, None
        if http is not None:
            try:
                await http.close()
            except RuntimeError:
                pass  # opened on another event loop: its connections go with it


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
