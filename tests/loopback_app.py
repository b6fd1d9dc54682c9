"""A small aiohttp app served on 127.0.0.1 (a free port) from a daemon thread of its own, for
tests whose loopback server needs only a few routes."""
from __future__ import annotations

import asyncio
import threading
from typing import Any

from aiohttp import web


def serve_routes(routes: list[tuple[str, str, Any]]) -> str:
    """Serve (method, path, handler) routes; the base URL once it listens."""
    ready, where = threading.Event(), {}

    def serve() -> None:
        loop = asyncio.new_event_loop()
        app = web.Application()
        for method, path, handler in routes:
            app.router.add_route(method, path, handler)
        runner = web.AppRunner(app)
        loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        loop.run_until_complete(site.start())
        where["url"] = f"http://127.0.0.1:{runner.addresses[0][1]}"
        ready.set()
        loop.run_forever()

    threading.Thread(target=serve, daemon=True).start()
    ready.wait(10)
    return where["url"]
