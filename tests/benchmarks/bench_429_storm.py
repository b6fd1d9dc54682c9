"""A 429 storm: fixed concurrency against the adaptive (AIMD) window (a benchmark, not a test).

A loopback stub speaking OpenAI's chat-completions wire answers at most ``--capacity``
requests at a time (``--latency-ms`` each); every request beyond that gets a 429 with
``Retry-After: --retry-after``. agentv's real OpenAI wire client, under its retry layer,
makes ``--calls`` calls with ``--workers`` at a time, once with a fixed window of
``--workers`` and once with the adaptive window; printed side by side: 429s, wall time,
the lowest window and failed calls.

    .venv/bin/python tests/benchmarks/bench_429_storm.py [--calls 200] [--workers 16]
        [--capacity 4] [--latency-ms 100] [--retry-after 1]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import threading
import time
from pathlib import Path

from aiohttp import web

ROOT = Path(os.environ.get("AGENTV_ROOT") or Path(__file__).resolve().parents[2])
sys.path.insert(0, str(ROOT))

from agentv.providers.base import Request, Target  # noqa: E402
from agentv.providers.limits import AimdWindow, LimitedProvider  # noqa: E402
from agentv.providers.llm.retry import RetryingProvider, RetryPolicy  # noqa: E402
from agentv.providers.registry import build_provider  # noqa: E402


class StormStub:
    """OpenAI chat completions; above ``capacity`` in flight: 429 with Retry-After."""

    def __init__(self, capacity: int, latency_s: float, retry_after: float):
        self.capacity, self.latency_s, self.retry_after = capacity, latency_s, retry_after
        self.in_flight = self.served = self.rejected = 0

    async def chat(self, request: web.Request) -> web.Response:
        await request.read()
        if self.in_flight >= self.capacity:
            self.rejected += 1
            return web.json_response(
                {"error": {"message": "Rate limit reached", "type": "requests",
                           "code": "rate_limit_exceeded"}}, status=429,
                headers={"Retry-After": f"{self.retry_after:g}"})
        self.in_flight += 1
        try:
            await asyncio.sleep(self.latency_s)
        finally:
            self.in_flight -= 1
        self.served += 1
        return web.json_response({
            "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "The answer is 5."}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})

    def start(self) -> str:
        """Serve on 127.0.0.1 in a thread of its own; returns the base URL."""
        ready: list[str] = []
        started = threading.Event()

        def serve() -> None:
            loop = asyncio.new_event_loop()
            app = web.Application()
            app.router.add_post("/v1/chat/completions", self.chat)
            runner = web.AppRunner(app, access_log=None)
            loop.run_until_complete(runner.setup())
            site = web.TCPSite(runner, "127.0.0.1", 0)
            loop.run_until_complete(site.start())
            ready.append(f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}")
            started.set()
            loop.run_forever()
        threading.Thread(target=serve, daemon=True).start()
        started.wait(10)
        return ready[0]


async def storm(base: str, args: argparse.Namespace, adaptive: bool) -> dict:
    built = build_provider(Target("storm", "openai", {
        "api_key": "k-bench-0123", "model": "gpt-4o-mini", "base_url": f"{base}/v1"}))
    window = AimdWindow("storm", args.workers, adaptive=adaptive)
    provider = RetryingProvider(LimitedProvider(built, window), RetryPolicy(
        max_retries=20, initial_delay_ms=200, max_delay_ms=5000))
    gate = asyncio.Semaphore(args.workers)  # the run's --workers
    failed = 0

    async def one(i: int) -> None:
        nonlocal failed
        async with gate:
            try:
                await provider.invoke(Request(eval_id=f"c{i}", question="What is 2 + 3?",
                                              chat=[{"role": "user",
                                                     "content": "What is 2 + 3?"}]))
            except Exception:  # noqa: BLE001 - counted
                failed += 1
    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(args.calls)))
    wall = time.perf_counter() - started
    await provider.aclose()
    return {"mode": "adaptive" if adaptive else "fixed", "wall_s": round(wall, 2),
            "429s": window.stats.rate_limited, "lowest_window": window.stats.lowest,
            "failed": failed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--capacity", type=int, default=4)
    parser.add_argument("--latency-ms", type=float, default=100)
    parser.add_argument("--retry-after", type=float, default=1)
    args = parser.parse_args()
    rows = []
    for adaptive in (False, True):
        stub = StormStub(args.capacity, args.latency_ms / 1000, args.retry_after)
        base = stub.start()
        row = asyncio.run(storm(base, args, adaptive))
        row["stub_429s"] = stub.rejected
        rows.append(row)
    print(f"{args.calls} calls, {args.workers} workers, stub capacity {args.capacity}, "
          f"{args.latency_ms:g} ms, Retry-After {args.retry_after:g} s")
    print(f"{'mode':<10}{'429s':>8}{'wall s':>9}{'lowest window':>15}{'failed':>8}")
    for r in rows:
        print(f"{r['mode']:<10}{r['429s']:>8}{r['wall_s']:>9}{r['lowest_window']:>15}"
              f"{r['failed']:>8}")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
