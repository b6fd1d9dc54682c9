"""The head start: the first cases go out before the flow run exists (while Prefect is
imported and the flow run created); the flow's batch tasks adopt them, so every case runs
once, is written once and is listed in its batch's table artifact. A dead
``PREFECT_API_URL`` is a configuration error before any case runs."""
from __future__ import annotations

import asyncio
import json
import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.flows.test_results_run import read_artifacts

pytestmark = pytest.mark.slow  # end-to-end (docs/development.md: the fast subset)


def _suite(d: Path, n: int, delay_ms: int) -> Path:
    rows = ["$schema: agentv-eval-v2", "target: slow", "evalcases:"]
    for i in range(n):
        rows += [f"  - id: case-{i:03d}", f'    input: "question {i}"',
                 "    evaluators:", '      - {name: has-ok, type: contains, value: "ok"}']
    (d / "EVAL.yaml").write_text("\n".join(rows) + "\n")
    (d / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: slow\n    provider: mock\n"
        f"    delayMs: {delay_ms}\n    response: ok\n")
    return d / "EVAL.yaml"


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _began(record: dict) -> datetime:
    ended = datetime.fromisoformat(record["timestamp"].replace("Z", "+00:00"))
    return ended - timedelta(milliseconds=record["latency_ms"])


def _flow_run(flow_run_id: str):
    from prefect.client.orchestration import get_client

    async def read():
        async with get_client() as client:
            return await client.read_flow_run(flow_run_id)
    return asyncio.run(read())


def test_cases_start_before_the_flow_run_and_their_batches_adopt_them(prefect_api, tmp_path):
    suite = _suite(tmp_path, 60, delay_ms=40)
    out = tmp_path / "r.jsonl"
    proc = run_cli("eval", str(suite), "--targets", str(tmp_path / "targets.yaml"),
                   "--workers", "4", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    records = _records(out)
    ids = [r["eval_id"] for r in records]
    assert sorted(ids) == [f"case-{i:03d}" for i in range(60)]  # each case once
    flow_run_id = re.search(r"flow-run/([0-9a-f-]{36})", proc.stdout).group(1)
    run = _flow_run(flow_run_id)
    assert run.state.is_completed()
    first = min(_began(r) for r in records)
    assert first < run.start_time  # the first case went out before the flow run started
    artifacts = read_artifacts(flow_run_id)
    listed = [row["eval_id"] for a in artifacts if a.description.startswith("Cases of batch")
              for row in (json.loads(a.data) if isinstance(a.data, str) else a.data)]
    assert sorted(listed) == sorted(ids)  # adopted cases are in their batch's table too


def test_a_dead_prefect_api_url_is_a_configuration_error_before_any_case(tmp_path):
    suite = _suite(tmp_path, 3, delay_ms=0)
    out = tmp_path / "r.jsonl"
    out.write_text('{"earlier": "results"}\n')
    proc = run_cli("eval", str(suite), "--targets", str(tmp_path / "targets.yaml"),
                   "--out", str(out), env={"PREFECT_API_URL": "http://me:s3cret@127.0.0.1:9/api"})
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "error: PREFECT_API_URL: no Prefect API answers at http://127.0.0.1:9/api "
        "([Errno 111] Connection refused); point it at a running Prefect server, or unset it "
        "to use agentv's local server"]
    assert "s3cret" not in proc.stdout + proc.stderr
    assert out.read_text() == '{"earlier": "results"}\n'  # nothing ran, nothing lost


def test_ctrl_c_during_the_head_start_records_what_ran_and_resumes(prefect_api, tmp_path):
    """Ctrl-C as soon as the run starts (the head start is running, Prefect still loading):
    the cases in flight finish and are recorded once, the run summarizes and exits 130,
    and ``--resume`` runs the rest."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.conftest import ROOT
    suite = _suite(tmp_path, 20, delay_ms=1500)
    out = tmp_path / "r.jsonl"
    out.write_text("stale\n")
    args = ["eval", str(suite), "--targets", str(tmp_path / "targets.yaml"), "--workers", "4"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "agentv", *args, "--out", str(out)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 60
    while out.stat().st_size and time.monotonic() < deadline:  # emptied: the run started
        time.sleep(0.01)
    time.sleep(0.3)  # the first cases are in flight; Prefect is still loading
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    first = [r["eval_id"] for r in _records(out)]
    assert 1 <= len(first) <= 4 and len(set(first)) == len(first)
    assert f"total cases: {len(first)}" in stdout and "--resume" in stdout
    assert "Traceback" not in stderr
    again = run_cli(*args, "--resume", str(out))
    assert again.returncode == 0, again.stderr
    every = [r["eval_id"] for r in _records(out)]
    assert sorted(every) == [f"case-{i:03d}" for i in range(20)] and every[:len(first)] == first
