"""EvalLoop benchmark: N samples through W ``agentv worker`` processes on a real redis-server
(each running C samples at once), against the in-memory mailbox in one process.

    .venv/bin/python tests/benchmarks/bench_evalloop.py --n 1000 --procs 3 --concurrency 8 \\
        --latency-ms 50

The target is ``tests.evalprog:program`` (a traced callable sleeping ``--latency-ms``).
Prints wall time (submit → last result, worker start-up excluded), samples/s and
wall/ideal (ideal = N × latency / (W × C)). Not part of the unit suite.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agentv.tasks.api.dataset import Dataset, Sample  # noqa: E402
from agentv.tasks.api.eval_client import (  # noqa: E402
    collect_results,
    request_mailbox,
    result_mailbox,
    submit_dataset,
)
from agentv.tasks.api.evalloop import EvalLoop  # noqa: E402
from tests.evalprog import Problem, program  # noqa: E402
from tests.redis_server import redis_server  # noqa: E402


def dataset(n: int) -> Dataset:
    return Dataset(tuple(Sample(f"s{i}", Problem(i, 1), i + 1) for i in range(n)))


def line(label: str, n: int, wall: float, ideal: float, passed: float) -> None:
    print(f"{label:<28} {n} samples  wall {wall:6.2f}s  {n / wall:7.1f} samples/s  "
          f"wall/ideal {wall / ideal:5.2f}  pass {passed:.0%}")


def redis_run(url: str, a: argparse.Namespace) -> None:
    name = f"bench-{uuid.uuid4().hex[:6]}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "EVALPROG_LATENCY_MS": str(a.latency_ms)}
    requests = request_mailbox(f"{url}#{name}-req", Problem, int)
    results = result_mailbox(f"{url}#{name}-res")
    procs = [subprocess.Popen([sys.executable, "-m", "agentv", "worker", "--requests",
                               f"{url}#{name}-req", "--results", f"{url}#{name}-res",
                               "--program", "tests.evalprog:program", "--workers",
                               str(a.concurrency)], cwd=ROOT, env=env,
                              stderr=subprocess.DEVNULL) for _ in range(a.procs)]
    time.sleep(a.warmup)  # worker start-up is not the loop's throughput
    data = dataset(a.n)
    started = time.perf_counter()
    submit_dataset(data, requests)
    report = collect_results(results, len(data), timeout_seconds=600)
    wall = time.perf_counter() - started
    for p in procs:
        p.terminate()
    for p in procs:
        p.wait(30)
    requests.purge(), results.purge(), requests.close(), results.close()
    ideal = a.n * a.latency_ms / 1000 / (a.procs * a.concurrency)
    line(f"redis, {a.procs} workers x {a.concurrency}", report.total, wall, ideal,
         report.pass_rate)


def memory_run(a: argparse.Namespace) -> None:
    os.environ["EVALPROG_LATENCY_MS"] = str(a.latency_ms)
    name = uuid.uuid4().hex[:6]
    requests = request_mailbox(f"memory://{name}-req", Problem, int)
    results = result_mailbox(f"memory://{name}-res")
    data = dataset(a.n)
    concurrency = a.procs * a.concurrency
    started = time.perf_counter()
    submit_dataset(data, requests)
    EvalLoop(loop=program.target, evaluator=program.evaluator, requests=requests,
             results=results, workers=concurrency, wait_time_seconds=0.05).run(until_empty=True)
    report = collect_results(results, len(data), timeout_seconds=60)
    wall = time.perf_counter() - started
    line(f"memory, 1 process x {concurrency}", report.total, wall,
         a.n * a.latency_ms / 1000 / concurrency, report.pass_rate)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=1000)
    p.add_argument("--procs", type=int, default=3)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--latency-ms", type=float, default=50)
    p.add_argument("--warmup", type=float, default=4.0)
    a = p.parse_args()
    with redis_server(Path(tempfile.mkdtemp())) as url:
        redis_run(url, a)
    memory_run(a)


if __name__ == "__main__":
    main()
