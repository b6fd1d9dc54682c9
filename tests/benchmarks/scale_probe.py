"""What the scale-out benchmark measures outside agentv: a Prefect server of its own whose
HTTP requests are counted from its own access log (uvicorn's, on at
``PREFECT_SERVER_LOGGING_LEVEL=INFO``) and whose CPU seconds are read from /proc, and the
loopback stub's figures (requests, first request, last answer).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import psutil

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
REQUEST = re.compile(r'"(GET|POST|PATCH|PUT|DELETE) (/api/[^ ?"]*)')


class PrefectProbe:
    """A dedicated Prefect server (its own AGENTV_HOME): requests and CPU so far."""

    def __init__(self, home: Path):
        self.home = home
        self.url = ""
        self.pid = 0

    def env(self) -> dict[str, str]:
        return {**os.environ, "AGENTV_HOME": str(self.home), "PREFECT_API_URL": self.url,
                "PYTHONPATH": str(ROOT)}

    def requests(self) -> dict[str, int]:
        """HTTP requests the server has answered, by route (ids folded)."""
        counts: dict[str, int] = {}
        with open(self.home / "server.log", errors="replace") as fh:
            for line in fh:
                match = REQUEST.search(line)
                if match:
                    route = re.sub(r"/[0-9a-f-]{36}", "/{id}", match.group(2))
                    key = f"{match.group(1)} {route}"
                    counts[key] = counts.get(key, 0) + 1
        return counts

    def cpu_s(self) -> float:
        try:
            proc = psutil.Process(self.pid)
            procs = [proc, *proc.children(recursive=True)]
        except psutil.NoSuchProcess:
            return 0.0
        total = 0.0
        for p in procs:
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except psutil.NoSuchProcess:
                pass
        return total

    def settled(self, quiet_s: float = 0.05, step_s: float = 1.0, limit_s: float = 60.0
                ) -> tuple[float, dict[str, int]]:
        """CPU and requests once the server has worked through what the run sent."""
        last, waited = self.cpu_s(), 0.0
        while waited < limit_s:
            time.sleep(step_s)
            waited += step_s
            now = self.cpu_s()
            if now - last < quiet_s:
                break
            last = now
        return self.cpu_s(), self.requests()


@contextmanager
def prefect_server(home: Path) -> Iterator[PrefectProbe]:
    """Start the benchmark's own Prefect server (agentv's local-server start, access log on)."""
    home.mkdir(parents=True, exist_ok=True)
    code = ("import sys; sys.path.insert(0, %r); "
            "from agentv.flows.prefect.server import start_server; "
            "print(start_server())" % str(ROOT))
    env = {**os.environ, "AGENTV_HOME": str(home), "PREFECT_SERVER_LOGGING_LEVEL": "INFO"}
    env.pop("PREFECT_API_URL", None)
    out = subprocess.run([PY, "-c", code], env=env, capture_output=True, text=True, check=True)
    probe = PrefectProbe(home)
    probe.url = out.stdout.strip().splitlines()[-1]
    probe.pid = json.loads((home / "server.json").read_text())["pid"]
    try:
        yield probe
    finally:
        kill_tree(probe.pid)


def kill_tree(pid: int) -> None:
    try:
        proc = psutil.Process(pid)
        procs = [proc, *proc.children(recursive=True)]
    except psutil.NoSuchProcess:
        return
    for p in procs:
        try:
            p.terminate()
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs(procs, timeout=15)
    for p in alive:
        p.kill()


@contextmanager
def stub(latency_ms: float) -> Iterator[tuple[str, dict]]:
    """The loopback OpenAI stub as its own process; after the block the dict holds its
    stats (requests, first request, last answer on time.monotonic)."""
    proc = subprocess.Popen([PY, str(Path(__file__).with_name("stub_process.py")),
                             "--latency-ms", str(latency_ms)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin and proc.stdout
    base_url = proc.stdout.readline().split()[1]
    stats: dict = {}
    try:
        yield base_url, stats
    finally:
        proc.stdin.close()
        stats.update(json.loads(proc.stdout.readline() or "{}"))
        proc.wait(30)


def make_suite(d: Path, n: int, base_url: str) -> tuple[Path, Path]:
    """N addition cases with a `contains` check on an openai target at the stub."""
    rows = ["$schema: agentv-eval-v2", "target: bench", "evalcases:"]
    for i in range(n):
        rows += [f"  - id: case-{i:05d}", f'    input: "{question(i)}"', "    evaluators:",
                 f'      - {{name: has-answer, type: contains, value: "{answer(i)}"}}']
    (d / "EVAL.yaml").write_text("\n".join(rows) + "\n")
    (d / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: bench\n    provider: openai\n"
        f"    model: stub-model\n    base_url: {base_url}\n"
        "    api_key: sk-bench-not-a-real-key\n")
    return d / "EVAL.yaml", d / "targets.yaml"


def question(i: int) -> str:
    return f"Case {i}: What is {100 + i % 9000} + {200 + (i * 7) % 9000}?"


def answer(i: int) -> int:
    return 100 + i % 9000 + 200 + (i * 7) % 9000


def count_records(paths: list[Path]) -> tuple[int, int]:
    """(records, passed) over results files."""
    records = passed = 0
    for path in paths:
        with open(path) as fh:
            for line in fh:
                if line.strip():
                    records += 1
                    passed += json.loads(line)["score"] >= 0.8
    return records, passed
