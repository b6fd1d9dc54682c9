"""The typed API runs on agentv's long-lived Prefect server (the CLI's), never on Prefect's
temporary one, and keeps Prefect's logs out of the caller's stdout."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
from agentv.evaluators import exact_match
from agentv.flows.dataset import run_dataset
from agentv.tasks.api.dataset import Dataset, Sample
report = run_dataset(Dataset((Sample("1", "hi", "HI"), Sample("2", "yo", "no"))), str.upper,
                     exact_match, out={out!r}, name="typed-on-server")
print("pass rate", report.pass_rate)
"""


@pytest.mark.slow
def test_run_dataset_uses_the_clis_server_and_a_quiet_stdout(prefect_api, tmp_path):
    out = tmp_path / "r.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env["PYTHONPATH"] = str(ROOT)  # AGENTV_HOME (the session server's) is inherited
    done = subprocess.run([sys.executable, "-c", SCRIPT.format(out=str(out))], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "pass rate 0.5\n"  # the caller's own output, nothing of Prefect's
    assert "temporary server" not in done.stderr.lower(), done.stderr
    link = re.search(r"agentv: prefect flow run: (\S+)", done.stderr)
    assert link and link.group(1).startswith(prefect_api.removesuffix("/api")), done.stderr
    assert f"agentv: results: {out}" in done.stderr
    flow_run_id = link.group(1).rstrip("/").rsplit("/", 1)[-1]
    with urllib.request.urlopen(f"{prefect_api}/flow_runs/{flow_run_id}", timeout=10) as resp:
        flow_run = json.load(resp)
    assert flow_run["state_type"] == "COMPLETED"  # the run is on the CLI's server
