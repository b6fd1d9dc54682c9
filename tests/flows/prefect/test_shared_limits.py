"""A target's ``shared_limit`` through the session's Prefect server: two concurrent runs of 8
workers each never put more than its 3 slots in flight at the (loopback) provider."""
from __future__ import annotations

import asyncio
import json
import os
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
def test_a_run_alone_keeps_its_leases_and_gives_every_one_back(prefect_api, monkeypatch):
    """40 calls of one run through a 2-slot limit, nobody else waiting: never more than 2
    at once, a lease serves the run's next call instead of going back and forth (well under
    2 server calls per call), an idle kept lease goes back within SPARE_S, and the run's
    end gives back every lease (its place in <name>-waiting too)."""
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

    async def busy_then_idle() -> tuple[int, int, int, int]:
        await asyncio.gather(*(call() for _ in range(40)))
        busy = pool.server_calls
        await asyncio.sleep(SPARE_S * 3)
        deadline = time.monotonic() + 10  # the releases of a loaded server's answers
        while (idle := await asyncio.to_thread(_active_slots, prefect_api, name)) \
                and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        async with pool.hold():
            pass
        await pool.aclose()
        return (busy, idle, await asyncio.to_thread(_active_slots, prefect_api, name),
                await asyncio.to_thread(_active_slots, prefect_api, f"{name}-waiting"))

    busy, idle, closed, waiting = asyncio.run(busy_then_idle())
    assert peak == 2 and not pool.offline
    assert busy < 80, busy  # reads, takes, releases (~30 here); without keeping: 80+
    assert idle == 0 and closed == 0 and waiting == 0


async def _two_runs_of_one_process(name: str, calls: int, call_s: float
                                   ) -> tuple[list[float], list[float], int]:
    """Two pools of one limit (two runs), each with a window of 3 calls like a run's; the
    second starts 0.5 s after the first. Returns each one's answer times and the peak."""
    from agentv.flows.prefect.shared_limits import PrefectSlots
    inflight, peak = 0, 0
    started = time.monotonic()

    async def run(delay: float, ends: list[float]) -> None:
        await asyncio.sleep(delay)
        pool, window = PrefectSlots(SharedLimit(name, 3), print), asyncio.Semaphore(3)

        async def call() -> None:
            nonlocal inflight, peak
            async with window, pool.hold():
                inflight += 1
                peak = max(peak, inflight)
                await asyncio.sleep(call_s)
                inflight -= 1
                ends.append(time.monotonic() - started)
        await asyncio.gather(*(call() for _ in range(calls)))
        await pool.aclose()
    first: list[float] = []
    second: list[float] = []
    await asyncio.gather(run(0.0, first), run(0.5, second))
    return first, second, peak


@pytest.mark.slow
def test_a_run_waiting_gets_its_turn_from_a_busy_one(prefect_api, monkeypatch):
    """A run that arrives while another holds every slot is served within a second and
    both then go at the same pace: the busy run neither keeps its leases nor takes a freed
    slot back at once while the other waits."""
    monkeypatch.setenv("PREFECT_API_URL", prefect_api)
    first, second, peak = asyncio.run(_two_runs_of_one_process(
        f"turns-{uuid.uuid4().hex[:8]}", 60, 0.15))
    assert peak <= 3
    assert second[0] - 0.5 < 1.5, second[0]  # its first answer: a call plus its turn
    pace = [len(first) / first[-1], len(second) / (second[-1] - 0.5)]
    assert max(pace) / min(pace) <= 1.2, pace


FAIR_CALLS = 60


def _fair_suite(root, run: str) -> str:
    rows = ["$schema: agentv-eval-v2", "evalcases:"]
    for i in range(FAIR_CALLS):
        rows += [f"  - id: c{i}", f"    input: 'run {run} case {i}'", "    evaluators:",
                 "      - {name: answered, type: contains, value: stub}"]
    (root / f"{run}.yaml").write_text("\n".join(rows) + "\n")
    return str(root / f"{run}.yaml")


def _on_the_same_core() -> None:
    """Both runs on one core, the last: the same CPU for each, so the pace compares the
    limit's fairness, not the scheduler's — and never the first core, where the signal
    tests' busy loops run beside this one under xdist (in one CI run a run starved there
    went 5.6 times slower than the other)."""
    cores = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cores[-1]})


@pytest.fixture(scope="module")
def fair_runs(prefect_api, tmp_path_factory):
    """Two `agentv eval` runs of 60 calls each on one stub target with a 3-slot
    shared_limit, the second started 0.5 s after the first."""
    import subprocess
    import sys

    from tests.conftest import ROOT
    root = tmp_path_factory.mktemp("fair")
    base_url, stub = start_stub(latency_ms=200)
    (root / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: openai\n"
        f"    model: m\n    base_url: {base_url}\n    api_key: sk-test-1234\n"
        f"    shared_limit: {{name: fair-{uuid.uuid4().hex[:8]}, slots: 3}}\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = {}
    for run in "AB":
        procs[run] = subprocess.Popen(
            [sys.executable, "-m", "agentv", "eval", _fair_suite(root, run), "--out",
             str(root / f"{run}.jsonl"), "--workers", "8"], cwd=root, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=_on_the_same_core)
        time.sleep(0.5)
    try:
        outs = {run: proc.communicate(timeout=600) for run, proc in procs.items()}
    finally:
        stub.stop()
    calls = {run: [r for r in stub.completions() if f"run {run} case" in json.dumps(r.body)]
             for run in "AB"}
    return procs, outs, calls, stub, root


def _answers(calls) -> list[float]:
    return sorted(r.at + r.latency_ms / 1000 for r in calls)


@pytest.mark.slow
def test_two_runs_sharing_three_slots_take_turns(fair_runs):
    procs, outs, calls, stub, root = fair_runs
    assert all(proc.returncode == 0 for proc in procs.values()), outs
    assert all(len(c) == FAIR_CALLS for c in calls.values())
    assert stub.max_inflight <= 3, [out[1][-3000:] for out in outs.values()]
    assert not any("unreachable" in out[1] for out in outs.values()), outs
    first = {run: _answers(c)[0] for run, c in calls.items()}
    waited = {run: json.loads((root / f"{run}.jsonl").read_text().splitlines()[0])["wait_ms"]
              / 1000 for run in "AB"}  # the first answered call's wait for its slot
    ready = {run: first[run] - 0.2 - waited[run] for run in "AB"}  # its first call made
    # Each gets its first answer within 2 s of the other's, but for what the second process
    # took to start beyond its 0.5 s stagger (a loaded 2-core machine: 0-2 s; the limit
    # has no part in it): the shared limit's share of the gap is at most 2 s.
    late_start = max(0.0, abs(ready["B"] - ready["A"]) - 0.5)
    assert abs(first["A"] - first["B"]) <= 2.0 + late_start, (first, ready, waited)
    pace = [len(c) / (_answers(c)[-1] - min(r.at for r in c)) for c in calls.values()]
    assert max(pace) / min(pace) <= 1.2, pace


@pytest.mark.slow
def test_each_record_says_how_long_its_call_waited_and_the_summary_in_all(fair_runs):
    procs, outs, _, _, root = fair_runs
    for run in "AB":
        records = [json.loads(line) for line in (root / f"{run}.jsonl").read_text()
                   .splitlines()]
        assert sum(1 for r in records if r["wait_ms"] > 0) >= FAIR_CALLS // 2
        note = [line for line in outs[run][0].splitlines() + outs[run][1].splitlines()
                if "waited on shared limit" in line]
        assert len(note) == 1 and "(3 slot(s))" in note[0] and "s in all" in note[0]
