"""Scale-out benchmark: one latency-bound suite (N cases, an openai target on a loopback stub
answering after ``--latency-ms``) on 1, 2 and 4 worker processes of each engine — a Dask
cluster, Prefect work-pool shards, the typed API's EvalLoop on Redis
(tests/benchmarks/scale_engines.py) — each worker running ``--concurrency`` cases at once.

    .venv/bin/python tests/benchmarks/bench_scale_out.py                  # N=20,000
    .venv/bin/python tests/benchmarks/bench_scale_out.py --n 500 --procs 1 2 --engines dask

Prints per run: wall (submission → last record, worker start-up excluded, a flow's own
start included), cases/s, efficiency vs. 1 worker (throughput / (W × throughput at W=1)),
the same on the steady span at the stub (first request → last answer), HTTP requests the
Prefect server answered per case (its access log) and its CPU seconds (settled), and the
busiest routes. A Prefect server, redis-server, dask scheduler/workers and prefect workers
of its own are started and stopped. Not part of the unit suite.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks import scale_engines as engines  # noqa: E402
from tests.benchmarks.scale_probe import count_records, make_suite, prefect_server, stub  # noqa: E402
from tests.redis_server import redis_server  # noqa: E402

ENGINES = ("dask", "shards", "evalloop")


def run_one(engine: str, procs: int, a: argparse.Namespace, d: Path, probe, redis_url: str
            ) -> dict:
    with stub(a.latency_ms) as (base_url, stats):
        eval_file, targets = make_suite(d, a.n, base_url)
        cpu0, req0 = probe.settled() if probe else (0.0, {})
        if engine == "evalloop":
            wall, outs = engines.run_evalloop(d, eval_file, targets, procs, a.concurrency,
                                              None, redis_url, a.n)
        else:
            run = engines.run_dask if engine == "dask" else engines.run_shards
            wall, outs = run(d, eval_file, targets, procs, a.concurrency, probe)
        cpu1, req1 = probe.settled() if probe and engine != "evalloop" else (cpu0, req0)
    records, passed = count_records(outs)
    routes = {k: req1.get(k, 0) - req0.get(k, 0) for k in req1}
    return {"engine": engine, "procs": procs, "wall": wall, "records": records,
            "passed": passed, "span": stats.get("last", 0) - stats.get("first", 0),
            "stub_requests": stats.get("requests", 0), "requests": sum(routes.values()),
            "server_cpu": cpu1 - cpu0, "routes": routes}


def print_table(rows: list[dict], a: argparse.Namespace) -> None:
    ideal1 = a.n * a.latency_ms / 1000 / a.concurrency
    print(f"\nN={a.n}  latency {a.latency_ms:.0f} ms  {a.concurrency} in flight per worker  "
          f"(ideal at 1 worker {ideal1:.0f} s)")
    print(f"{'engine':<9} {'W':>2} {'wall s':>7} {'cases/s':>8} {'eff':>5} {'span s':>7} "
          f"{'span c/s':>8} {'eff':>5} {'API/case':>8} {'srv CPU s':>9} {'passed':>12}")
    base: dict[str, dict] = {}
    for r in rows:
        base.setdefault(r["engine"], r) if r["procs"] == 1 else None
        b = base.get(r["engine"])
        thr, sthr = r["records"] / r["wall"], r["records"] / max(r["span"], 1e-9)
        eff = thr / (r["procs"] * b["records"] / b["wall"]) if b else float("nan")
        seff = sthr / (r["procs"] * b["records"] / max(b["span"], 1e-9)) if b else float("nan")
        print(f"{r['engine']:<9} {r['procs']:>2} {r['wall']:>7.1f} {thr:>8.1f} {eff:>5.2f} "
              f"{r['span']:>7.1f} {sthr:>8.1f} {seff:>5.2f} {r['requests'] / a.n:>8.3f} "
              f"{r['server_cpu']:>9.1f} {r['passed']:>6}/{r['records']}")
    for r in rows:
        if r["requests"]:
            top = sorted(r["routes"].items(), key=lambda kv: -kv[1])[:6]
            print(f"  {r['engine']} W={r['procs']} routes: "
                  + ", ".join(f"{k} {v}" for k, v in top if v))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=20_000)
    p.add_argument("--procs", type=int, nargs="+", default=[1, 2, 4])
    p.add_argument("--concurrency", type=int, default=32, help="cases in flight per worker")
    p.add_argument("--latency-ms", type=float, default=300)
    p.add_argument("--engines", nargs="+", default=list(ENGINES), choices=ENGINES)
    a = p.parse_args()
    print("load before:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    rows = []
    with ExitStack() as stack:
        d = Path(tempfile.mkdtemp(prefix="agentv-scale-"))
        needs_prefect = {"dask", "shards"} & set(a.engines)
        probe = stack.enter_context(prefect_server(d / "home")) if needs_prefect else None
        redis_url = stack.enter_context(redis_server(d)) if "evalloop" in a.engines else ""
        if "shards" in a.engines:
            engines.deploy_shards(d, probe)
        for engine in a.engines:
            for procs in a.procs:
                rows.append(run_one(engine, procs, a, d, probe, redis_url))
                r = rows[-1]
                print(f"  {engine} W={procs}: {r['wall']:.1f}s, {r['records']} records",
                      file=sys.stderr, flush=True)
    print_table(rows, a)
    print("load after:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"cores: {os.cpu_count()}")


if __name__ == "__main__":
    main()
