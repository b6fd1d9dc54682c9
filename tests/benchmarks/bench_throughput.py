"""agentv throughput benchmark: the real `python -m flows.eval` against a loopback stub.

    .venv/bin/python tests/benchmarks/bench_throughput.py --n 500 --workers 32 --latency-ms 50
    .venv/bin/python tests/benchmarks/bench_throughput.py --mock --latency-ms 0 --workers 50 \
        --n 2000 20000
    .venv/bin/python tests/benchmarks/bench_throughput.py --mock --n 500 --prefect-tasks case
    .venv/bin/python tests/benchmarks/bench_throughput.py --startup

Generates N addition cases with a deterministic `contains` check, runs them through the
CLI on an `openai` target pointed at the stub (or the mock target with --mock) and prints
wall time, cases/s, wall/ideal (ideal = N × latency / W), steady-state span/ideal (first
request to last answer at the stub), "start" (process start to the first request; with
--mock to the first record) and "tail" (last answer, or last record, to process exit),
CPU seconds of the agentv process tree and of the Prefect server (at exit, and settled once
it has recorded the run: the total per case uses the settled figure), peak RSS, and passed
N/N. Several --n values also print the flat-memory ratio (peak RSS at the last N over
the first). `--startup` times `--help`, `validate` and the
time to the first result of a one-case dry run. Not part of the unit suite.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable


def make_suite(d: Path, n: int, base_url: str | None, latency_ms: float) -> Path:
    rng = random.Random(7)
    rows = ["$schema: agentv-eval-v2", "target: bench", "evalcases:"]
    for i in range(n):
        a, b = rng.randint(100, 9999), rng.randint(100, 9999)
        rows += [f"  - id: case-{i:05d}", f'    input: "Case {i}: What is {a} + {b}?"',
                 "    evaluators:",
                 f'      - {{name: has-answer, type: contains, value: "{a + b}"}}']
    (d / "EVAL.yaml").write_text("\n".join(rows) + "\n")
    if base_url:
        target = (f"    provider: openai\n    model: stub-model\n    base_url: {base_url}\n"
                  "    api_key: sk-bench-not-a-real-key\n")
    else:
        target = f"    provider: mock\n    delayMs: {latency_ms}\n    response: ok\n"
    (d / "targets.yaml").write_text("$schema: agentv-targets-v2\ntargets:\n  - name: bench\n"
                                    + target)
    return d / "EVAL.yaml"


def server_cpu_s() -> float:
    """CPU seconds used so far by the background Prefect server (0 if unknown)."""
    from agentv.flows.prefect.server import read_state
    state = read_state() or {}
    try:
        fields = Path(f"/proc/{state['pid']}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = sum(int(x) for x in fields[11:15])
        return ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, KeyError, IndexError, ValueError):
        return 0.0


def settled_server_cpu_s(quiet_s: float = 0.02, step_s: float = 0.5,
                         limit_s: float = 30.0) -> float:
    """The server's CPU once it has recorded what the run sent: the task-run recorder and
    the event persister work through their backlog after agentv exits."""
    last, waited = server_cpu_s(), 0.0
    while waited < limit_s:
        time.sleep(step_s)
        waited += step_s
        now = server_cpu_s()
        if now - last < quiet_s:
            return now
        last = now
    return last


def _epoch(stamp: str) -> float:
    from datetime import datetime
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def run_agentv(d: Path, eval_file: Path, workers: int, prefect_tasks: str = "batch") -> dict:
    out = d / "results.jsonl"
    srv0 = settled_server_cpu_s()
    log = d / "agentv.log"
    t0, mono0, epoch0 = time.perf_counter(), time.monotonic(), time.time()
    with open(log, "w") as fh:  # wait4: this run's own CPU and peak RSS, not the stub's
        proc = subprocess.Popen([PY, "-m", "agentv.flows.eval", str(eval_file), "--targets",
                                 str(d / "targets.yaml"), "--workers", str(workers), "--out",
                                 str(out), "--prefect-tasks", prefect_tasks], cwd=ROOT,
                                stdout=fh, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    wall, mono1, epoch1 = time.perf_counter() - t0, time.monotonic(), time.time()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"agentv failed ({proc.returncode}):\n{log.read_text()[-3000:]}")
    passed = records = 0
    first = last = None
    with open(out) as fh:  # streamed: the benchmark's own memory stays flat too
        for line in fh:
            if line.strip():
                r = json.loads(line)
                records += 1
                passed += r["score"] >= 0.8
                at = _epoch(r["timestamp"])
                first, last = min(first or at, at), max(last or at, at)
    cpu = usage.ru_utime + usage.ru_stime
    return {"wall": wall, "cpu": cpu, "mono": (mono0, mono1),
            "record_span": (first - epoch0, epoch1 - last) if first and last else None,
            "server_cpu": server_cpu_s() - srv0,
            "server_cpu_settled": settled_server_cpu_s() - srv0, "rss_mb": usage.ru_maxrss / 1024,
            "records": records, "passed": passed}


def start_stub(latency_ms: float, stub_args: list[str]) -> tuple[subprocess.Popen, str]:
    stub = subprocess.Popen([PY, str(Path(__file__).with_name("stub_process.py")),
                             "--latency-ms", str(latency_ms), *stub_args],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = stub.stdout.readline().split()
    return stub, line[1]


def bench(args) -> None:
    from agentv.flows.prefect.server import ensure_api
    ensure_api(lambda m: print(m, file=sys.stderr))
    peaks = []
    for n in args.n:
        peaks.append(bench_one(args, n))
    if len(peaks) > 1:
        print(f"flat memory: peak RSS at N={args.n[-1]} / N={args.n[0]} = "
              f"{peaks[-1] / peaks[0]:.2f} (goal ≤ 1.10)")


def bench_one(args, n: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        stub, base_url = (None, None) if args.mock else start_stub(args.latency_ms, args.stub_args)
        eval_file = make_suite(d, n, base_url, args.latency_ms)
        res = run_agentv(d, eval_file, args.workers, args.prefect_tasks)
        stats = {}
        if stub:
            stub.stdin.close()
            stats = json.loads(stub.stdout.readline())
            stub.wait()
    ideal = n * args.latency_ms / 1000.0 / args.workers
    span = stats.get("last", 0) - stats.get("first", 0) if stats else None
    print(f"N={n} W={args.workers} latency={args.latency_ms}ms "
          f"target={'mock' if args.mock else 'openai via loopback stub'}")
    print(f"  wall {res['wall']:.2f}s  cases/s {n / res['wall']:.1f}  ideal {ideal:.2f}s  "
          f"wall/ideal {res['wall'] / ideal if ideal else float('nan'):.2f}")
    if span:
        start, tail = stats["first"] - res["mono"][0], res["mono"][1] - stats["last"]
        print(f"  steady span {span:.2f}s  span/ideal {span / ideal:.2f}  "
              f"stub requests {stats['requests']}  retry-after violations {stats['violations']}")
        print(f"  start (process start → first request) {start:.2f}s  "
              f"tail (last response → process exit) {tail:.2f}s (goal ≤ 0.30)")
    elif res["record_span"]:
        start, tail = res["record_span"]
        print(f"  start (process start → first record) {start:.2f}s  "
              f"tail (last record → process exit) {tail:.2f}s (goal ≤ 0.30)")
    print(f"  CPU {res['cpu']:.2f}s ({1000 * res['cpu'] / n:.2f} ms/case)  "
          f"Prefect server CPU {res['server_cpu']:.2f}s at exit, "
          f"{res['server_cpu_settled']:.2f}s settled  (total "
          f"{1000 * (res['cpu'] + res['server_cpu_settled']) / n:.2f} ms/case, goal ≤ 2.5)  "
          f"peak RSS {res['rss_mb']:.0f} MB")
    print(f"  passed {res['passed']}/{n}  records {res['records']}")
    return res["rss_mb"]


def startup() -> None:
    from agentv.flows.prefect.server import ensure_api
    ensure_api(lambda m: print(m, file=sys.stderr))
    example = ROOT / "data" / "examples" / "simple"
    for label, cmd in (("--help", [PY, "-m", "agentv", "--help"]),
                       ("validate", [PY, "-m", "agentv", "validate", str(example)])):
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            subprocess.run(cmd, cwd=ROOT, capture_output=True)
            times.append(time.perf_counter() - t0)
        print(f"  {label}: median {sorted(times)[2]:.3f}s (goal ≤ 0.6 s)")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.jsonl"
        t0 = time.perf_counter()
        proc = subprocess.Popen([PY, "-m", "agentv", "eval",
                                 str(example / "evals" / "example.test.yaml"), "--dry-run",
                                 "--eval-id", "plain-greeting", "--out", str(out)], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        first = None
        while proc.poll() is None:
            if first is None and out.exists() and out.stat().st_size:
                first = time.perf_counter() - t0
            time.sleep(0.005)
        print(f"  one-case dry run: first result {first:.2f}s, exit "
              f"{time.perf_counter() - t0:.2f}s (goal ≤ 3 s to first result)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, nargs="+", default=[500],
                   help="case counts; two or more also print the flat-memory ratio")
    p.add_argument("--workers", type=int, default=32)
    p.add_argument("--latency-ms", type=float, default=50)
    p.add_argument("--mock", action="store_true", help="mock target instead of the stub")
    p.add_argument("--startup", action="store_true", help="time --help, validate, first result")
    p.add_argument("--prefect-tasks", default="batch", choices=("batch", "case"),
                   help="case: two Prefect task runs per case (their cost per case)")
    p.add_argument("--stub-args", nargs=argparse.REMAINDER, default=[],
                   help="passed to the stub, e.g. --fail-429 0.1 --retry-after 1")
    args = p.parse_args()
    sys.path.insert(0, str(ROOT))
    startup() if args.startup else bench(args)


if __name__ == "__main__":
    main()
