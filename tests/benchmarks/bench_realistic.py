"""The realistic profile: a target AND an llm_judge per case on each LLM wire format.

    .venv/bin/python tests/benchmarks/bench_realistic.py                  # N=5000, 50 workers
    .venv/bin/python tests/benchmarks/bench_realistic.py --n 1000 --routes azure,anthropic
    .venv/bin/python tests/benchmarks/bench_realistic.py --n 2000 --routes openai --shared-slots 50
    .venv/bin/python tests/benchmarks/bench_realistic.py --n 2000 --routes openai --no-sandbox

For each route (openai, azure, anthropic, gemini) it starts the loopback stub
(tests/stub_llm.py) in its own process with a seeded lognormal latency (p50 300 ms,
p99 2 s), writes N addition cases whose target and judge are both targets of that route,
runs the real `python -m flows.eval` and prints: wall and wall/ideal (ideal = the sum of
the latencies the stub sampled / workers), the steady span (first request to last answer)
and the overhead outside it (start-up before the first request, tail after the last
answer), CPU ms per case of the agentv process tree and of the Prefect server, peak RSS,
and passed/records. CPU inside the span is the agentv process's CPU sampled at the first
request and the last answer. `--root` runs another checkout (e.g. main, for before/after).
Not part of the unit suite.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
ROUTES = ("openai", "azure", "anthropic", "gemini")
KEY = "sk-bench-not-a-real-key"


def target_yaml(name: str, route: str, base: str, shared: str = "") -> str:
    settings = {"openai": f"model: gpt-4o-mini\n    base_url: {base}/v1",
                "azure": f"endpoint: {base}\n    model: gpt-4o\n    version: 2024-10-21",
                "anthropic": f"model: claude-haiku-4-5\n    base_url: {base}",
                "gemini": f"model: gemini-2.5-flash\n    base_url: {base}"}[route]
    return (f"  - name: {name}\n    provider: {route}\n    {settings}\n    api_key: {KEY}\n"
            "    judge_target: judge\n" + shared)


def make_suite(d: Path, n: int, route: str, base: str, shared_slots: int = 0) -> Path:
    """``shared_slots``: target and judge share one Prefect global concurrency limit (the
    provider's deployment), every call holding one of its slots."""
    rng = random.Random(7)
    rows = ["$schema: agentv-eval-v2", "target: bench", "evalcases:"]
    for i in range(n):
        a, b = rng.randint(100, 9999), rng.randint(100, 9999)
        rows += [f"  - id: case-{i:05d}", f'    input: "Case {i}: What is {a} + {b}?"',
                 f'    expected_outcome: "says {a + b}"', "    evaluators:",
                 "      - {name: judge, type: llm_judge}"]
    (d / "EVAL.yaml").write_text("\n".join(rows) + "\n")
    shared = (f"    shared_limit: {{name: bench-{route}-{os.getpid()}, slots: {shared_slots}}}\n"
              if shared_slots else "")
    (d / "targets.yaml").write_text("$schema: agentv-targets-v2\ntargets:\n"
                                    + target_yaml("bench", route, base, shared)
                                    + target_yaml("judge", route, base, shared))
    return d / "EVAL.yaml"


# ------------------------------------------------------------------ the stub process
def serve_stub(p50_ms: float, p99_ms: float, seed: int) -> None:
    """``--serve-stub``: print READY <url>, serve until stdin closes, print stats."""
    sys.path.insert(0, str(ROOT))
    from tests.stub_llm import start_stub
    from tests.stub_wire import sigma_for
    base, stub = start_stub(latency_ms=p50_ms, latency_sigma=sigma_for(p50_ms, p99_ms),
                            seed=seed)
    print(f"READY {base}", flush=True)
    sys.stdin.read()
    done = [r for r in stub.completions() if r.status == 200]
    stats = {"requests": len(stub.completions()), "ok": len(done),
             "latency_sum_s": sum(r.latency_ms for r in done) / 1000.0}
    if done:
        stats["first"] = min(r.at for r in done)
        stats["last"] = max(r.at + r.latency_ms / 1000.0 for r in done)
        lat = sorted(r.latency_ms for r in done)
        stats["p50_ms"], stats["p99_ms"] = lat[len(lat) // 2], lat[int(len(lat) * 0.99)]
    print(json.dumps(stats), flush=True)
    stub.stop()


def proc_cpu_s(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def measure(cmd: list[str]) -> None:
    """``--measure CMD…``: run CMD, print its wall, CPU and peak RSS (its process tree) and
    its CPU sampled every 50 ms (to split the CPU inside and outside the steady span)."""
    t0 = time.monotonic()
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        samples = []
        while proc.poll() is None:
            cpu = proc_cpu_s(proc.pid)
            if cpu is not None:
                samples.append((time.monotonic(), cpu))
            time.sleep(0.05)
        t1 = time.monotonic()
        err.seek(0)
        stderr = err.read()[-3000:]
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"start": t0, "end": t1, "rc": proc.returncode,
                      "cpu": use.ru_utime + use.ru_stime, "rss_mb": use.ru_maxrss / 1024,
                      "samples": samples, "stderr": stderr}))


def cpu_at(samples: list[list[float]], when: float) -> float:
    """The sampled CPU seconds at (just before) ``when``."""
    before = [cpu for at, cpu in samples if at <= when]
    return before[-1] if before else 0.0


def server_cpu_s(root: Path) -> float:
    """CPU seconds used so far by the background Prefect server (0 if unknown)."""
    sys.path.insert(0, str(root))
    from agentv.flows.prefect.server import read_state
    pid = (read_state() or {}).get("pid")
    return (proc_cpu_s(pid) if isinstance(pid, int) else None) or 0.0


# ------------------------------------------------------------------ one route
def run_route(route: str, args) -> dict:
    stub = subprocess.Popen([PY, __file__, "--serve-stub", "--p50-ms", str(args.p50_ms),
                             "--p99-ms", str(args.p99_ms)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    base = stub.stdout.readline().split()[1]
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        eval_file = make_suite(d, args.n, route, base, args.shared_slots)
        out = d / "results.jsonl"
        srv0 = server_cpu_s(args.root)
        cmd = [PY, "-m", "agentv.flows.eval", str(eval_file), "--targets", str(d / "targets.yaml"),
               "--workers", str(args.workers), "--out", str(out)]
        cmd += ["--no-sandbox"] if args.no_sandbox else []
        done = subprocess.run([PY, __file__, "--measure", *cmd], cwd=args.root,
                              capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(args.root)})
        res = json.loads(done.stdout.splitlines()[-1])
        res["server_cpu"] = server_cpu_s(args.root) - srv0
        if res["rc"] != 0:
            raise SystemExit(f"agentv failed on {route} ({res['rc']}):\n{res['stderr']}")
        records = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    stub.stdin.close()
    stats = json.loads(stub.stdout.readline())
    stub.wait()
    res.update(stats=stats, records=len(records),
               passed=sum(1 for r in records if (r.get("score") or 0) >= 0.8))
    return res


def report(route: str, res: dict, args) -> None:
    s, n = res["stats"], args.n
    wall = res["end"] - res["start"]
    ideal = s["latency_sum_s"] / args.workers
    span = s["last"] - s["first"]
    steady = cpu_at(res["samples"], s["last"]) - cpu_at(res["samples"], s["first"])
    print(f"{route:10} wall {wall:6.2f}s  ideal {ideal:6.2f}s  wall/ideal {wall / ideal:.2f}  "
          f"span/ideal {span / ideal:.2f}  outside span {wall - span:.2f}s "
          f"(start {s['first'] - res['start']:.2f}s, tail {res['end'] - s['last']:.2f}s)")
    print(f"{'':10} CPU {1000 * res['cpu'] / n:.2f} ms/case (agentv tree; "
          f"{1000 * steady / n:.2f} inside the span)  "
          f"Prefect server {1000 * res['server_cpu'] / n:.2f} ms/case  "
          f"peak RSS {res['rss_mb']:.0f} MB  calls {s['ok']}/{s['requests']}  "
          f"latency p50 {s.get('p50_ms', 0):.0f} ms p99 {s.get('p99_ms', 0):.0f} ms  "
          f"passed {res['passed']}/{n}  records {res['records']}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=5000)
    p.add_argument("--workers", type=int, default=50)
    p.add_argument("--routes", default=",".join(ROUTES), help="comma-separated wire formats")
    p.add_argument("--shared-slots", type=int, default=0,
                   help="target and judge under one shared_limit of this many slots")
    p.add_argument("--p50-ms", type=float, default=300.0)
    p.add_argument("--p99-ms", type=float, default=2000.0)
    p.add_argument("--root", type=Path, default=ROOT, help="the agentv checkout to run")
    p.add_argument("--no-sandbox", action="store_true",
                   help="run agentv with --no-sandbox (the sandbox's share of the profile)")
    p.add_argument("--serve-stub", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--measure", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.serve_stub:
        return serve_stub(args.p50_ms, args.p99_ms, seed=7)
    if args.measure:
        return measure(args.measure)
    routes = [r.strip() for r in args.routes.split(",") if r.strip()]
    unknown = set(routes) - set(ROUTES)
    if unknown:
        p.error(f"unknown routes {sorted(unknown)} (known: {', '.join(ROUTES)})")
    sys.path.insert(0, str(args.root))
    from agentv.flows.prefect.server import ensure_api
    ensure_api(lambda m: print(m, file=sys.stderr))
    print(f"N={args.n} W={args.workers} latency lognormal p50 {args.p50_ms:g} ms "
          f"p99 {args.p99_ms:g} ms, target + llm_judge per case, root {args.root}")
    for route in routes:
        report(route, run_route(route, args), args)


if __name__ == "__main__":
    main()
