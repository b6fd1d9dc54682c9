"""A Redis restart mid-run (issue 27): 300 samples, one ``agentv worker`` process and
``collect_results`` on a real redis-server with an AOF fsync'd on every write; the server is
``kill -9``ed and restarted on the same port and file while results flow. Every sample is in
the report and the results file exactly once, nothing is dead-lettered (an outage is not a
delivery), and the worker is still running, having logged the outage in one line."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agentv.tasks.api.dataset import Dataset, Sample
from agentv.tasks.api.eval_client import (
    collect_results,
    request_mailbox,
    result_mailbox,
    submit_dataset,
)
from agentv.tasks.api.reconnect import Outage
from tests import REPO
from tests.evalprog import Problem
from tests.redis_server import RedisProcess

N = 300


def start_worker(url: str, out: Path, log: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO), "EVALPROG_LATENCY_MS": "15"}
    with open(log, "w") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "agentv", "worker", "--requests", f"{url}#req",
             "--results", f"{url}#res", "--program", "tests.evalprog:program",
             "--visibility-timeout", "3", "--max-deliveries", "2", "--retry-delay", "0.1",
             "--workers", "4", "--out", str(out)],
            cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)


def lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


@pytest.fixture(scope="module")
def restart_run(tmp_path_factory):
    """The run; returns what the assertions look at."""
    tmp = tmp_path_factory.mktemp("restart")
    server = RedisProcess(tmp, aof=True)
    url = server.start()
    data = Dataset(tuple(Sample(f"s{i:03d}", Problem(i, 1), i + 1) for i in range(N)))
    requests = request_mailbox(f"{url}#req", Problem, int, 2)
    submit_dataset(data, requests)
    worker = start_worker(url, tmp / "worker.jsonl", tmp / "worker.log")
    collected: dict = {}
    collector_log: list[str] = []

    def collect() -> None:
        collected["report"] = collect_results(result_mailbox(f"{url}#res"), N,
                                              out=tmp / "out.jsonl", timeout_seconds=30,
                                              visibility_timeout=3, log=collector_log.append)
    collector = threading.Thread(target=collect)
    collector.start()
    try:
        deadline = time.monotonic() + 20
        while lines(tmp / "worker.jsonl") < N // 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        killed_at = lines(tmp / "worker.jsonl")
        server.kill()  # SIGKILL mid-run; the AOF holds every acknowledged write
        time.sleep(0.3)
        server.start()
        collector.join(30)
        alive = worker.poll() is None
        dead = requests.dead_letters()
        worker.send_signal(signal.SIGTERM)
        code = worker.wait(20)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
        requests.close()
        server.stop()
    return {"report": collected.get("report"), "killed_at": killed_at, "alive": alive,
            "dead": dead, "code": code, "worker_log": (tmp / "worker.log").read_text(),
            "collector_log": collector_log, "out": tmp / "out.jsonl",
            "worker_out": tmp / "worker.jsonl"}


@pytest.mark.slow
def test_every_sample_once_in_the_report_and_the_file(restart_run):
    assert 0 < restart_run["killed_at"] < N  # the server died mid-run
    report = restart_run["report"]
    assert report is not None
    ids = sorted(r.sample_id for r in report.results)
    assert ids == [f"s{i:03d}" for i in range(N)]
    assert report.successful == N and report.pass_rate == 1.0
    written = [json.loads(line) for line in restart_run["out"].read_text().splitlines()]
    assert sorted(r["eval_id"] for r in written) == ids


@pytest.mark.slow
def test_no_sample_dead_lettered_and_the_worker_lives_through_the_outage(restart_run):
    assert restart_run["dead"] == []
    assert restart_run["alive"] and restart_run["code"] == 0
    log = restart_run["worker_log"]
    assert "Traceback" not in log and "stopped after" in log
    outage_lines = [line for line in log.splitlines() if "unreachable" in line]
    assert len(outage_lines) == 1 and "reconnecting with backoff" in outage_lines[0]
    assert len(restart_run["collector_log"]) == 1


def test_backoff_grows_to_its_cap_with_jitter():
    outage = Outage(print, base_seconds=0.1, cap_seconds=2.0)
    delays = [[outage.delay(attempt) for _ in range(50)] for attempt in range(8)]
    assert all(0.05 <= d <= 0.1 for d in delays[0])
    assert all(1.0 <= d <= 2.0 for d in delays[7])  # capped
    assert len({round(d, 6) for d in delays[7]}) > 1  # jittered
