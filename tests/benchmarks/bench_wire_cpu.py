"""CPU per LLM call of agentv's own wire clients (a benchmark, not a test).

The loopback stub runs as its own process (tests/benchmarks/stub_process.py), so the CPU
measured (``time.process_time``) is the client's alone: building the request with the
vendor's rules, sending it, reading and pricing the reply. Each route makes ``--calls``
calls, ``--concurrency`` at a time, after a warm-up; FACTS.md's figure is 600 calls, 20 at a
time.

    .venv/bin/python tests/benchmarks/bench_wire_cpu.py [--calls 600] [--concurrency 20]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(os.environ.get("AGENTV_ROOT") or Path(__file__).resolve().parents[2])
sys.path.insert(0, str(ROOT))

from agentv.providers.base import Request, Target  # noqa: E402
from agentv.providers.registry import build_provider  # noqa: E402

ROUTES = {  # name: (kind, settings beyond key and base)
    "openai gpt-4o-mini": ("openai", {"model": "gpt-4o-mini", "temperature": 0.2,
                                      "max_output_tokens": 64}),
    "openai o3-mini (reasoning rules)": ("openai", {"model": "o3-mini", "temperature": 0.2,
                                                    "max_output_tokens": 64}),
    "anthropic claude-haiku-4-5 (thinking)": ("anthropic", {
        "model": "claude-haiku-4-5", "max_output_tokens": 64, "reasoning_effort": "low",
        "temperature": 0.2}),
    "gemini gemini-2.5-flash (thinking)": ("gemini", {
        "model": "gemini-2.5-flash", "max_output_tokens": 64, "reasoning_effort": "low"}),
}


def start_stub() -> tuple[subprocess.Popen, str]:
    stub = subprocess.Popen([sys.executable, str(Path(__file__).with_name("stub_process.py")),
                             "--latency-ms", "2"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert stub.stdout is not None
    line = stub.stdout.readline().split()
    assert line and line[0] == "READY", line
    return stub, line[1]


def provider(kind: str, settings: dict, base: str):
    where = {"openai": {"base_url": f"{base}/v1"}}.get(kind, {"base_url": base})
    built = build_provider(Target("bench", kind, {"api_key": "k-bench-0123", **settings,
                                                  **where}))
    built.check()
    return built


async def calls(built, n: int, concurrency: int) -> None:
    gate = asyncio.Semaphore(concurrency)
    chat = [{"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "What is 2 + 3?"}]

    async def one(i: int) -> None:
        async with gate:
            response = await built.invoke(Request(eval_id=f"c{i}", question="What is 2 + 3?",
                                                  chat=chat))
            assert response.text == "The answer is 5.", response.text

    await asyncio.gather(*(one(i) for i in range(n)))


async def measure(built, n: int, concurrency: int) -> float:
    try:
        await calls(built, 50, concurrency)  # warm-up: session, price map, code paths
        started = time.process_time()
        await calls(built, n, concurrency)
        return (time.process_time() - started) * 1000 / n
    finally:
        await built.aclose()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--calls", type=int, default=600)
    p.add_argument("--concurrency", type=int, default=20)
    a = p.parse_args()
    stub, base = start_stub()
    try:
        out = {name: round(asyncio.run(measure(provider(kind, s, base), a.calls,
                                               a.concurrency)), 3)
               for name, (kind, s) in ROUTES.items()}
    finally:
        assert stub.stdin is not None
        stub.stdin.close()
        stub.wait(30)
    print(json.dumps({"root": str(ROOT), "calls": a.calls, "concurrency": a.concurrency,
                      "cpu_ms_per_call": out}, indent=2))


if __name__ == "__main__":
    main()
