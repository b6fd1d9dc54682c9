"""``LoopThread``: one event loop in a daemon thread, for calling async providers from sync
code (the typed API's judges).

Every call runs on the same loop, so a provider's HTTP session is opened once and reused
(``asyncio.run`` per call would open, and leak, one per call). ``close()`` runs the owner's
``on_close`` coroutine (the provider's ``aclose``) on that loop and stops it; a later call
starts a new loop. A loop still running when its owner is garbage-collected, or at
interpreter exit, is closed the same way.
"""
from __future__ import annotations

import asyncio
import threading
import weakref
from typing import Any, Awaitable, Callable, TypeVar

T = TypeVar("T")
CLOSE_TIMEOUT_S = 10.0


class LoopThread:
    def __init__(self, on_close: Callable[[], Awaitable[Any]] | None = None) -> None:
        self._on_close = on_close  # must not reference this object (see weakref.finalize)
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._finalizer: weakref.finalize | None = None

    def run(self, make: Callable[[], Awaitable[T]]) -> T:
        """Run ``make()`` on the loop and wait for its result (from any other thread)."""
        loop = self._start()
        if threading.current_thread() is self._thread:
            raise RuntimeError("LoopThread.run() called from its own loop")
        return asyncio.run_coroutine_threadsafe(_awaited(make), loop).result()

    def close(self) -> None:
        """Close the owner's resources on the loop, then stop it (no call may be in flight)."""
        with self._lock:
            finalizer, self._finalizer = self._finalizer, None
            self._loop = self._thread = None
        if finalizer is not None:
            finalizer()

    @property
    def running(self) -> bool:
        return self._loop is not None

    def _start(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="agentv-loop",
                                          daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
                self._finalizer = weakref.finalize(self, _shutdown, loop, thread, self._on_close)
            return self._loop


async def _awaited(make: Callable[[], Awaitable[T]]) -> T:
    return await make()


def _shutdown(loop: asyncio.AbstractEventLoop, thread: threading.Thread,
              on_close: Callable[[], Awaitable[Any]] | None) -> None:
    if on_close is not None:
        try:
            asyncio.run_coroutine_threadsafe(_awaited(on_close), loop).result(CLOSE_TIMEOUT_S)
        except Exception:  # noqa: BLE001 - closing is best effort; the loop stops anyway
            pass
    loop.call_soon_threadsafe(loop.stop)
    thread.join(CLOSE_TIMEOUT_S)
    if not thread.is_alive():
        loop.close()
