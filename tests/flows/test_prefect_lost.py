"""The Prefect server killed (-9) mid-run: the cases go on, each recorded once, the summary
prints, one line says Prefect recording stopped, exit 3 (not the quality gate's 1), no
traceback. The server is a real one of this test's own (the session's stays up)."""
from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from tests.flows.test_crash_safety import keys, start

pytestmark = pytest.mark.slow


def make_suite(tmp_path: Path, n: int, delay_ms: int) -> Path:
    (tmp_path / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: mock\n"
        f"    delayMs: {delay_ms}\n    response: ok\n")
    cases = "".join(f"  - id: c{i:03d}\n    input: q{i}\n    evaluators:\n"
                    "      - {type: contains, value: ok}\n" for i in range(n))
    f = tmp_path / "e.yaml"
    f.write_text("$schema: agentv-eval-v2\nevalcases:\n" + cases)
    return f


def flow_running(url: str) -> bool:
    body = {"flow_runs": {"state": {"type": {"any_": ["RUNNING"]}}}}
    try:
        return httpx.post(f"{url}/flow_runs/count", json=body, timeout=2).json() >= 1
    except httpx.HTTPError:
        return False


def lines(path: Path) -> int:
    return path.read_text().count("\n") if path.exists() else 0


def test_prefect_server_killed_mid_run_every_case_recorded_once(own_prefect_server, tmp_path):
    url, pid = own_prefect_server
    n = 300
    out = tmp_path / "r.jsonl"
    proc = start(["eval", str(make_suite(tmp_path, n, 300)), "--workers", "8",
                  "--out", str(out)], tmp_path)
    deadline = time.monotonic() + 120
    # mid-run: once the flow run runs and 20 more cases are in (on a loaded machine the
    # head start may have run 100 cases before the flow run exists: killed then)
    while not flow_running(url) and lines(out) < 100 and time.monotonic() < deadline:
        time.sleep(0.2)
    floor = lines(out) + 20
    while lines(out) < floor and time.monotonic() < deadline:
        time.sleep(0.05)
    killed_at = lines(out)
    os.killpg(pid, signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=180)
    assert killed_at < n, "the run ended before the server was killed"
    assert proc.returncode == 3, stderr
    assert "Traceback" not in stderr + stdout
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith("error: Prefect recording stopped: "
                                                     f"no Prefect API answers at {url}"), stderr
    assert f"every case ran and is recorded in {out}" in errors[0]
    assert [line for line in stderr.splitlines()
            if line.strip() and not line.startswith("agentv:")] == errors  # nothing else
    assert f"total cases: {n}" in stdout
    recorded = keys(out)
    assert len(recorded) == len(set(recorded)) == n
    assert all(json.loads(line)["score"] == 1.0 for line in out.read_text().splitlines())
