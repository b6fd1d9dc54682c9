"""No secret in Prefect's local result storage or PREFECT_HOME, even for failed runs.

Prefect pickles the results and exceptions of flow and task runs that persist their results
into ``PREFECT_LOCAL_STORAGE_PATH`` (``$PREFECT_HOME/storage``), and a user's profile may
turn persistence on for everything (``PREFECT_RESULTS_PERSIST_BY_DEFAULT=true``, set here).
The scenario, with the canaries of tests/flows/test_secrets.py: a ``--prefect-tasks case`` run whose
cases fail with the key in the ProviderError message (and whose answers echo it), and a
deployment-style run of the ``agentv-eval`` flow (the flow builds its plan itself) that fails
on a ConfigError whose message holds a healthcheck token. Grepped: every byte under the
runs' PREFECT_HOME (each stored result decoded: a base64 pickle), the server's PREFECT_HOME
(in AGENTV_HOME) and the failed run's task-run and flow-run states in the Prefect API.
"""
from __future__ import annotations

import asyncio
import base64
import json
import os
import pickle
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.flows.test_secrets import (  # noqa: F401
    CANARY,
    EchoServer,
    fresh_secrets,
    leaks,
    prefect_texts,
    write_project,
)
from tests.stub_llm import start_stub

FAILING_RUN = """
import asyncio, json, sys
from agentv.flows.pipeline import eval_flow
state = asyncio.run(eval_flow(options={"paths": [sys.argv[1]], "targets": sys.argv[2]},
                              return_state=True))
print(json.dumps({"flow_run_id": str(state.state_details.flow_run_id), "failed": state.is_failed(),
                  "message": state.message}))
"""


def stored_pickle(path: Path) -> bytes:
    """What a file of Prefect's local storage holds: a base64 pickle, bare or as the
    ``result`` of a JSON record (the bytes a plain grep of the file would not see)."""
    data = path.read_bytes()
    if data.startswith(b"{"):
        data = json.loads(data)["result"].encode()
    return base64.b64decode(data)


def prefect_env(home: Path) -> dict[str, str]:
    return {"PREFECT_HOME": str(home), "PREFECT_RESULTS_PERSIST_BY_DEFAULT": "true",
            "CLI_AGENT_TOKEN": CANARY["CLI_AGENT"], "SPARE_VAR": CANARY["SPARE"]}


def failing_deployment_run(project: Path, env: dict[str, str]) -> dict:
    health = EchoServer(errors=0, health_status=503).start()
    (project / "failing-targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: cli\n"
        "    command_template: echo hi\n"
        f"    healthcheck: {{type: http, url: '{health.url}/health?token="
        "${{ HEALTH_TOKEN }}'}\n")
    (project / "one.yaml").write_text("$schema: agentv-eval-v2\nevalcases:\n"
                                      "  - id: a\n    input: hi\n")
    full_env = {**os.environ, **env, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", FAILING_RUN, str(project / "one.yaml"),
                           str(project / "failing-targets.yaml")], cwd=project, env=full_env,
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    printed = proc.stdout + proc.stderr
    assert not leaks(printed), [line for line in printed.splitlines() if leaks(line)]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_no_canary_in_prefect_storage_after_failed_runs(cli, tmp_path):
    home = tmp_path / "prefect-home"
    env = prefect_env(home)
    project = tmp_path / "project"
    project.mkdir()
    echo = EchoServer(errors=12).start()
    anthropic_url, stub = start_stub(script=[401])
    try:
        write_project(project, echo.url, anthropic_url)
        out = project / "results" / "r.jsonl"
        proc = cli("eval", str(project / "e.yaml"), "--out", str(out), "--prefect-tasks", "case",
                   cwd=project, env=env)
    finally:
        stub.stop()
    assert proc.returncode == 1, proc.stderr[-3000:]  # cases errored
    records = {r["eval_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert records["agent-fail"]["error"] and "***" in records["agent-fail"]["error"]
    assert echo.count > 12  # the key-echoing ProviderErrors really happened
    failed = failing_deployment_run(project, env)
    assert failed["failed"] and "***" in failed["message"]  # the ConfigError really happened
    assert home.is_dir()  # the runs' Prefect home (settings, storage) is the one grepped
    agentv_home = Path(os.environ["AGENTV_HOME"])  # the server's PREFECT_HOME is in it
    scanned = [p for root in (home, agentv_home) for p in root.rglob("*") if p.is_file()]
    assert any(p.suffix == ".db" for p in scanned)
    for path in scanned:
        assert not leaks(path.read_bytes()), path
    stored = [stored_pickle(p) for p in (home / "storage").iterdir()]
    # Prefect pickled the failed flow run's exception (always, persist_result or not),
    # scrubbed; no task or flow result was pickled (the summary, the cases' records)
    assert stored and all(b"ConfigError" in data and b"***" in data for data in stored)
    assert not [leaks(data) for data in stored if leaks(data)]
    time.sleep(2)  # logs reach the API in batches
    texts = asyncio.run(prefect_texts(failed["flow_run_id"]))
    assert any("ConfigError" in t or "healthcheck" in t for t in texts)
    assert not [leaks(t) for t in texts if leaks(t)]


def test_an_exception_holding_a_secret_reaches_prefect_scrubbed(fresh_secrets):  # noqa: F811
    from agentv.flows.prefect.scrubbed import scrub_errors
    from agentv.providers.errors import ConfigError, ProviderError
    from agentv.tasks.load.redact import register
    secret = "sk-unit-" + uuid.uuid4().hex
    register([secret])

    async def fails(err: Exception) -> None:
        raise err
    config = ConfigError(f"key {secret} rejected", "targets.yaml:3", "api_key")
    provider = ProviderError("HTTP 401", status=401, details={"body": f"bad key {secret}"})
    plain = ValueError("nothing secret here")
    for err in (config, provider, plain):
        with pytest.raises(Exception) as caught:
            asyncio.run(scrub_errors(fails)(err))
        assert secret.encode() not in pickle.dumps(caught.value)
        assert caught.value.__context__ is None and caught.value.__cause__ is None
        assert secret not in str(caught.value) + repr(caught.value)
    assert isinstance(caught.value, ValueError) and caught.value is plain
    with pytest.raises(ConfigError) as as_config:
        asyncio.run(scrub_errors(fails)(config))
    assert as_config.value.render() == "targets.yaml:3: api_key: key *** rejected"
