"""The three scale-out engines of the benchmark (tests/benchmarks/bench_scale_out.py), each
run for real on W worker processes with C cases in flight per worker:

* ``dask``: a ``dask scheduler`` and W ``dask worker`` processes; ``agentv eval
  --task-runner dask --dask-address`` submits the run's batches to them.
* ``shards``: a process work pool with W ``prefect worker start --limit 1`` workers and the
  ``agentv-shard`` deployment; the bench runs ``deployments.shards.run_shards`` (what the
  nightly flow does with ``shards: W``), each shard ``--workers C``.
* ``evalloop``: a redis-server and W ``agentv worker --workers C`` processes (the typed
  API's EvalLoop, target ``bench`` from targets.yaml, evaluator ``contains``); no Prefect.

Each returns (wall seconds from submission to the last record, results files).
"""
from __future__ import annotations

import json
import socket
import subprocess
import time
import uuid
from contextlib import ExitStack
from pathlib import Path

from tests.benchmarks.scale_probe import PY, ROOT, PrefectProbe, answer, kill_tree, question

POOL = "agentv-bench"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spawn(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    with open(log, "ab") as fh:
        return subprocess.Popen(args, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)


def _stopping(stack: ExitStack, proc: subprocess.Popen) -> subprocess.Popen:
    stack.callback(kill_tree, proc.pid)
    return proc


def _wait_for(text: str, log: Path, count: int = 1, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and log.read_text(errors="replace").count(text) >= count:
            return
        time.sleep(0.2)
    raise RuntimeError(f"{log.name}: no {count}× {text!r} within {timeout:.0f}s")


def run_dask(d: Path, eval_file: Path, targets: Path, procs: int, conc: int,
             probe: PrefectProbe) -> tuple[float, list[Path]]:
    env, port, out = probe.env(), _free_port(), d / f"dask-{procs}.jsonl"
    address = f"tcp://127.0.0.1:{port}"
    with ExitStack() as stack:
        log = d / f"dask-{procs}.log"
        _stopping(stack, _spawn([PY, "-m", "distributed.cli.dask_scheduler", "--host",
                                 "127.0.0.1", "--port", str(port), "--no-dashboard"], env, log))
        _wait_for("Scheduler at", log)
        for _ in range(procs):
            _stopping(stack, _spawn([PY, "-m", "distributed.cli.dask_worker", address,
                                     "--nworkers", "1", "--nthreads", "2", "--no-dashboard",
                                     "--local-directory", str(d)], env, log))
        _wait_for("Starting established connection", log, procs)
        started = time.perf_counter()
        proc = subprocess.run([PY, "-m", "agentv", "eval", str(eval_file), "--targets",
                               str(targets), "--workers", str(procs * conc), "--out", str(out),
                               "--task-runner", "dask", "--dask-address", address],
                              cwd=ROOT, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"dask run failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return wall, [out]


def deploy_shards(d: Path, probe: PrefectProbe) -> None:
    """The process work pool and the agentv-shard deployment, once per server."""
    yaml = d / "prefect.yaml"
    yaml.write_text(f"name: agentv-bench\nprefect-version: 3.8.8\npush: null\ndeployments:\n"
                    f"  - name: agentv-shard\n    entrypoint: deployments/shards.py:shard_flow\n"
                    f"    work_pool:\n      name: {POOL}\n")
    env = probe.env()
    subprocess.run([PY, "-m", "prefect", "work-pool", "create", POOL, "--type", "process"],
                   cwd=ROOT, env=env, check=True, capture_output=True)
    subprocess.run([PY, "-m", "prefect", "--no-prompt", "deploy", "--all", "--prefect-file",
                    str(yaml)], cwd=ROOT, env=env, check=True, capture_output=True)


def run_shards(d: Path, eval_file: Path, targets: Path, procs: int, conc: int,
               probe: PrefectProbe) -> tuple[float, list[Path]]:
    env = {**probe.env(), "PREFECT_WORKER_QUERY_SECONDS": "1",
           "PREFECT_WORKER_PREFETCH_SECONDS": "1"}
    out_dir = d / f"shards-{procs}"
    with ExitStack() as stack:
        log = d / f"shards-{procs}.log"
        for i in range(procs):
            _stopping(stack, _spawn([PY, "-m", "prefect", "worker", "start", "--pool", POOL,
                                     "--limit", "1", "--name", f"bench-{procs}-{i}"], env, log))
        _wait_for("started!", log, procs)
        started = time.perf_counter()
        code = ("import asyncio, sys, json; from pathlib import Path; "
                "from deployments.shards import run_shards; "
                "print(json.dumps(asyncio.run(run_shards(int(sys.argv[1]), Path(sys.argv[2]), "
                "json.loads(sys.argv[3])))))")
        params = {"suites": [str(eval_file)], "targets": str(targets), "workers": conc}
        proc = subprocess.run([PY, "-c", code, str(procs), str(out_dir), json.dumps(params)],
                              cwd=ROOT, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"shard runs failed:\n{proc.stderr[-3000:]}")
    return wall, [Path(p) for p in json.loads(proc.stdout.strip().splitlines()[-1])]


def run_evalloop(d: Path, eval_file: Path, targets: Path, procs: int, conc: int,
                 probe: PrefectProbe | None, redis_url: str, n: int) -> tuple[float, list[Path]]:
    from agentv.tasks.api.dataset import Dataset, Sample
    from agentv.tasks.api.eval_client import (
        collect_results,
        request_mailbox,
        result_mailbox,
        submit_dataset,
    )
    name = f"bench-{uuid.uuid4().hex[:6]}"
    req_url, res_url = f"{redis_url}#{name}-req", f"{redis_url}#{name}-res"
    outs = [d / f"evalloop-{procs}-{i}.jsonl" for i in range(procs)]
    env = {**(probe.env() if probe else {}), "PYTHONPATH": str(ROOT)}
    env.pop("PREFECT_API_URL", None)
    with ExitStack() as stack:
        log = d / f"evalloop-{procs}.log"
        for out in outs:
            _stopping(stack, _spawn([PY, "-m", "agentv", "worker", "--requests", req_url,
                                     "--results", res_url, "--program",
                                     "agentv.evaluators.functions:contains", "--target", "bench",
                                     "--targets", str(targets), "--workers", str(conc),
                                     "--out", str(out)], env, log))
        _wait_for("worker: polling", log, procs)
        requests, results = request_mailbox(req_url), result_mailbox(res_url)
        data = Dataset(tuple(Sample(f"case-{i:05d}", question(i), str(answer(i)))
                             for i in range(n)))
        started = time.perf_counter()
        submit_dataset(data, requests)
        collect_results(results, n, timeout_seconds=1800)
        wall = time.perf_counter() - started
        requests.purge(), results.purge(), requests.close(), results.close()
    return wall, outs
