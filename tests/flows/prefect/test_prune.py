"""The Prefect database stays bounded: ``agentv server prune --older-than AGE`` deletes the
older flow runs with their task runs and artifacts on a real server and keeps the younger;
agentv's own server starts with Prefect's vacuum set to the retention."""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from datetime import datetime, timezone
from uuid import UUID

import pytest

from agentv.flows.prefect.prune import (
    DEFAULT_RETENTION_DAYS,
    parse_age,
    prune_flow_runs,
    retention_env,
)
from agentv.providers.errors import ConfigError
from tests.conftest import run_cli

RUN_TWICE = """
import time
from datetime import datetime, timezone
from uuid import UUID
from prefect import flow, task
from prefect.artifacts import create_markdown_artifact

@task
def step() -> int:
    create_markdown_artifact("a task's artifact", key="prune-test-task")
    return 1

@flow(name="prune-test")
def run_once() -> int:
    create_markdown_artifact("a flow's artifact", key="prune-test-flow")
    return step()

print(run_once(return_state=True).state_details.flow_run_id)
time.sleep(3)
print(datetime.now(timezone.utc).isoformat())
time.sleep(1)
print(run_once(return_state=True).state_details.flow_run_id)
"""


def _two_flow_runs(api_url: str) -> tuple[UUID, datetime, UUID]:
    """An old and a young flow run, each with a task run and two artifacts, from a process
    of their own (this one's Prefect event sender may still point at another server)."""
    proc = subprocess.run([sys.executable, "-c", RUN_TWICE], capture_output=True, text=True,
                          env={**os.environ, "PREFECT_API_URL": api_url}, timeout=300)
    assert proc.returncode == 0, proc.stderr
    old, split, young = proc.stdout.split()[-3:]
    return UUID(old), datetime.fromisoformat(split), UUID(young)


async def _kept(run_ids):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        ArtifactFilter,
        ArtifactFilterFlowRunId,
        FlowRunFilter,
        FlowRunFilterId,
        TaskRunFilter,
        TaskRunFilterFlowRunId,
    )
    async with get_client() as client:
        runs = await client.read_flow_runs(
            flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=run_ids)))
        tasks = await client.read_task_runs(
            task_run_filter=TaskRunFilter(flow_run_id=TaskRunFilterFlowRunId(any_=run_ids)))
        artifacts = await client.read_artifacts(
            artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=run_ids)))
    return ({r.id for r in runs}, {t.flow_run_id for t in tasks},
            {a.flow_run_id for a in artifacts})


@pytest.mark.slow
def test_prune_deletes_older_runs_with_their_task_runs_and_artifacts(own_prefect_server):
    from prefect.settings import PREFECT_API_URL, temporary_settings
    with temporary_settings(updates={PREFECT_API_URL: own_prefect_server[0]}):
        _old_pruned_young_kept(own_prefect_server[0])


def _old_pruned_young_kept(api_url: str) -> None:
    old, split, young = _two_flow_runs(api_url)
    deadline = time.monotonic() + 60  # task runs reach the server as events
    while _kept_now([old, young])[1] != {old, young} and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _kept_now([old, young]) == ({old, young},) * 3

    pruned = asyncio.run(prune_flow_runs(datetime.now(timezone.utc) - split))
    assert pruned.flow_runs >= 1 and pruned.artifacts >= 2
    assert _kept_now([old, young]) == ({young},) * 3


def _kept_now(run_ids):
    return asyncio.run(_kept(run_ids))


@pytest.mark.slow
def test_prune_command_reports_what_it_deleted(cli):
    proc = cli("server", "prune", "--older-than", "3650d")  # the session's server: no run
    # is that old, nothing is deleted
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("pruned 0 flow run(s) and 0 artifact(s) older than 3650d")


def test_prune_rejects_a_bad_age_in_one_line():
    proc = run_cli("server", "prune", "--older-than", "soon")
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("error: --older-than: 'soon' is not an age "
                                   "(examples: 30d, 12h, 90m, 2w)")


def test_ages_and_the_default_retention(monkeypatch):
    assert parse_age("30d").days == 30 and parse_age("12h").total_seconds() == 43200
    assert parse_age("2w").days == 14 and parse_age("7").days == 7
    monkeypatch.delenv("AGENTV_SERVER_RETENTION_DAYS", raising=False)
    assert retention_env() == {
        "PREFECT_SERVER_SERVICES_DB_VACUUM_ENABLED": "events,flow_runs",
        "PREFECT_SERVER_SERVICES_DB_VACUUM_RETENTION_PERIOD": str(DEFAULT_RETENTION_DAYS * 86400)}
    monkeypatch.setenv("AGENTV_SERVER_RETENTION_DAYS", "0")
    assert retention_env() == {}
    monkeypatch.setenv("AGENTV_SERVER_RETENTION_DAYS", "a month")
    with pytest.raises(ConfigError, match="not a number of days"):
        retention_env()


@pytest.mark.slow
def test_agentv_starts_its_server_with_the_retention(tmp_path, monkeypatch):
    """The server agentv starts reads the retention (Prefect's settings of that process)."""
    from agentv.flows.prefect import server
    monkeypatch.setenv("AGENTV_HOME", str(tmp_path))
    monkeypatch.setenv("AGENTV_SERVER_RETENTION_DAYS", "7")
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    server.start_server(wait=False)
    pid = server.read_state()["pid"]
    try:
        environ = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
        assert b"PREFECT_SERVER_SERVICES_DB_VACUUM_RETENTION_PERIOD=604800" in environ
        assert b"PREFECT_SERVER_SERVICES_DB_VACUUM_ENABLED=events,flow_runs" in environ
    finally:
        os.killpg(pid, 9)


def _suite(root, cases: int) -> str:
    rows = ["$schema: agentv-eval-v2", "target: fast", "evalcases:"]
    for i in range(cases):
        rows += [f"  - id: case-{i:05d}", f"    input: 'Case {i}: hello'", "    evaluators:",
                 "      - {name: answered, type: contains, value: ok}"]
    (root / "EVAL.yaml").write_text("\n".join(rows) + "\n")
    (root / "targets.yaml").write_text("$schema: agentv-targets-v2\ntargets:\n"
                                       "  - name: fast\n    provider: mock\n    response: ok\n")
    return str(root / "EVAL.yaml")


@pytest.mark.slow
def test_prune_of_every_run_returns_the_files_to_their_size_before_them(own_prefect_server,
                                                                        tmp_path):
    """2,000 cases grow the local server's database (file + write-ahead log); pruning
    every run brings the files back to at most 1.2× their size before the runs, and the
    server goes on answering."""
    from pathlib import Path

    from agentv.flows.prefect.db_compact import files_size
    from agentv.flows.prefect.server import healthy, read_state
    database = Path(read_state()["database"])
    before = files_size(database)
    proc = run_cli("eval", _suite(tmp_path, 2000), "--out", str(tmp_path / "r.jsonl"),
                   cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr
    time.sleep(3)  # the server writes the run's last events
    grown = files_size(database)
    assert grown - before > 500_000, (before, grown)

    proc = run_cli("server", "prune", "--older-than", "0s", cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("pruned 1 flow run(s)")
    assert "database: " in proc.stdout and " → " in proc.stdout
    after = files_size(database)
    assert after <= 1.2 * before, (before, grown, after, proc.stdout)
    assert healthy(own_prefect_server[0])
