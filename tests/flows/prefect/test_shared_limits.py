"""A target's ``shared_limit`` through the session's Prefect server: two concurrent runs of 8
workers each never put more than its 3 slots in flight at the (loopback) provider."""
from __future__ import annotations

import asyncio
import json
import time
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from agentv.providers.limits import SharedLimit
from tests.conftest import run_cli
from tests.stub_llm import start_stub

CASES = 15  # each call takes and gives back a lease: a write on the server (SQLite)


@pytest.fixture(scope="module")
def two_runs(prefect_api, tmp_path_factory):
    root = tmp_path_factory.mktemp("shared-limit")
    name = f"stub-prod-{uuid.uuid4().hex[:8]}"
    base_url, stub = start_stub(latency_ms=40)
    (root / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: openai\n"
        f"    model: gpt-4o-mini\n    base_url: {base_url}\n    api_key: sk-test-1234\n"
        f"    shared_limit: {{name: {name}, slots: 3}}\n")
    (root / "e.yaml").write_text("$schema: agentv-eval-v2\nevalcases:\n" + "".join(
        f"  - id: c{i}\n    input: 'What is {i} + 1?'\n    expected_outcome: adds\n"
        for i in range(CASES)))

    def run(n: int):
        return run_cli("eval", str(root / "e.yaml"), "--out", str(root / f"r{n}.jsonl"),
                       "--workers", "8", cwd=root, timeout=300)
    try:
        with ThreadPoolExecutor(2) as pool:
            procs = list(pool.map(run, (1, 2)))
    finally:
        stub.stop()
    with urllib.request.urlopen(f"{prefect_api}/v2/concurrency_limits/{name}") as reply:
        limit = json.load(reply)
    return procs, stub, limit, root


@pytest.mark.slow
def test_two_runs_share_three_slots(two_runs):
    procs, stub, limit, root = two_runs
    for n, proc in enumerate(procs, 1):
        assert proc.returncode == 0, proc.stderr
        records = [json.loads(line) for line in (root / f"r{n}.jsonl").read_text().splitlines()]
        assert sorted(r["eval_id"] for r in records) == sorted(f"c{i}" for i in range(CASES))
        assert all(r["error"] is None for r in records)
    assert len(stub.completions()) >= 2 * CASES
    assert 1 <= stub.max_inflight <= 3


@pytest.mark.slow
def test_the_limit_is_a_prefect_global_concurrency_limit(two_runs):
    _, _, limit, _ = two_runs
    assert limit["limit"] == 3 and limit["active"] is True
    assert limit["active_slots"] == 0  # every lease released


def test_unreachable_server_falls_back_to_a_local_limit(monkeypatch):
    from agentv.flows.prefect.shared_limits import PrefectSlots
    said: list[str] = []
    pool = PrefectSlots(SharedLimit("nowhere", 2), said.append)

    async def hold_twice() -> None:
        for _ in range(2):
            async with pool.hold():
                pass
        await pool.aclose()
    started = time.monotonic()
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")  # nothing listens
    asyncio.run(hold_twice())
    assert time.monotonic() - started < 15
    assert len(said) == 1 and "unreachable" in said[0] and "local limit of 2" in said[0]
    assert pool.offline


def _active_slots(api: str, name: str) -> int:
    with urllib.request.urlopen(f"{api}/v2/concurrency_limits/{name}") as reply:
        return json.load(reply)["active_slots"]


@pytest.mark.slow
def test_a_busy_run_reuses_its_leases_and_gives_every_one_back(prefect_api, monkeypatch):
    """40 calls of one run through a 2-slot limit: never more than 2 at once, a lease serves
    the run's next waiting call instead of going back and forth (at most ~2 server calls per
    MAX_USES calls, not 2 per call), an idle kept lease goes back within SPARE_S, and the
    run's end gives back every lease."""
    from agentv.flows.prefect.shared_limits import SPARE_S, PrefectSlots
    monkeypatch.setenv("PREFECT_API_URL", prefect_api)
    name = f"reuse-{uuid.uuid4().hex[:8]}"
    pool = PrefectSlots(SharedLimit(name, 2), print)
    inflight, peak = 0, 0

    async def call() -> None:
        nonlocal inflight, peak
        async with pool.hold():
            inflight += 1
            peak = max(peak, inflight)
            await asyncio.sleep(0.01)
            inflight -= 1

    async def busy_then_idle() -> tuple[int, int, int]:
        await asyncio.gather(*(call() for _ in range(40)))
        busy = pool.server_calls
        await asyncio.sleep(SPARE_S * 3)
        idle = await asyncio.to_thread(_active_slots, prefect_api, name)
        async with pool.hold():
            pass
        await pool.aclose()
        return busy, idle, await asyncio.to_thread(_active_slots, prefect_api, name)

    busy, idle, closed = asyncio.run(busy_then_idle())
    assert peak == 2 and not pool.offline
    assert busy <= 40, busy  # takes, polls, releases (23 when idle); 2 a call before: 80+
    assert idle == 0 and closed == 0
