"""The nightly regression deployment, for real: a process work pool on the session's Prefect
server, `prefect deploy` of deployments/prefect.yaml, two `prefect worker start` workers,
and deployment runs — a sharded run against an unchanged baseline (Completed), a planted
regression (Failed), a missing suite (Failed before any case) — plus a deploy whose
parameters name a missing suite (stopped before anything is registered)."""
from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentv.tasks.results.frames import load_results
from tests.conftest import EXAMPLE, ROOT, run_cli

pytestmark = pytest.mark.slow  # end-to-end (docs/development.md: the fast subset)

POOL = "agentv"
SUITE = str(EXAMPLE / "evals" / "example.test.yaml")
FINAL = {"COMPLETED", "FAILED", "CRASHED", "CANCELLED"}


def prefect_cmd(*args: str, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PREFECT_WORKER_QUERY_SECONDS": "1",
           "PREFECT_WORKER_PREFETCH_SECONDS": "1"}
    return subprocess.Popen([sys.executable, "-m", "prefect", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, **kwargs)


def stop(proc: subprocess.Popen) -> str:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
    return proc.communicate()[0] or ""


async def create_pool() -> None:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import WorkPoolCreate
    from prefect.workers.process import ProcessWorker
    async with get_client() as client:
        await client.create_work_pool(work_pool=WorkPoolCreate(
            name=POOL, type="process",
            base_job_template=ProcessWorker.get_default_base_job_template()))


def bad_prefect_yaml(directory: Path) -> Path:
    """A copy of prefect.yaml whose check step still names the original (good) file: the
    check must read the file actually being deployed."""
    path = directory / "prefect.yaml"
    path.write_text(f"""name: agentv-bad
build:
  - deployments.nightly.check_step:
      path: deployments/prefect.yaml
deployments:
  - name: agentv-nightly-bad
    entrypoint: deployments/nightly.py:nightly_flow
    parameters:
      suites: [{directory / 'no-such-suite.yaml'}]
    work_pool:
      name: {POOL}
""")
    return path


def baselines(directory: Path) -> dict[str, str]:
    """An unchanged baseline (a real dry run of the suite) and one 0.3 better everywhere."""
    same = directory / "baseline.jsonl"
    proc = run_cli("eval", SUITE, "--dry-run", "--out", str(same))
    assert proc.returncode == 0, proc.stderr
    better = directory / "baseline-better.jsonl"
    better.write_text("".join(
        json.dumps({**r, "score": r["score"] + 0.3}) + "\n"  # uncapped: Δ -0.3 on every case
        for r in map(json.loads, same.read_text().splitlines())))
    return {"same": str(same), "better": str(better)}


async def start_runs(base: dict[str, str], out_dir: Path) -> dict[str, str]:
    from prefect.deployments.flow_runs import arun_deployment
    common = {"suites": [SUITE], "dry_run": True, "out_dir": str(out_dir)}
    plans = {"sharded": {**common, "baseline": base["same"], "shards": 2, "trials": 2},
             "regressed": {**common, "baseline": base["better"]},
             "missing": {**common, "suites": [str(out_dir / "gone.yaml")]},
             "gated": {**common, "fail_under": 0.99}}
    runs = await asyncio.gather(*(
        arun_deployment("agentv-nightly/agentv-nightly", parameters=p, timeout=0,
                        as_subflow=False) for p in plans.values()))
    return {name: str(run.id) for name, run in zip(plans, runs)}


async def wait_final(flow_run_id: str, timeout: float = 300.0):
    from prefect.client.orchestration import get_client
    deadline = time.monotonic() + timeout
    async with get_client() as client:
        while True:
            run = await client.read_flow_run(flow_run_id)
            if run.state and run.state.type.name in FINAL:
                return run
            assert time.monotonic() < deadline, f"{run.name} still {run.state.type.name}"
            await asyncio.sleep(0.5)


@pytest.fixture(scope="module")
def deployed(prefect_api, tmp_path_factory):
    directory = tmp_path_factory.mktemp("deploy")
    asyncio.run(create_pool())
    workers = [prefect_cmd("worker", "start", "--pool", POOL, "--name", f"w{i}") for i in (1, 2)]
    deploy = prefect_cmd("--no-prompt", "deploy", "--all", "--prefect-file",
                         "deployments/prefect.yaml")
    bad = prefect_cmd("--no-prompt", "deploy", "--all", "--prefect-file",
                      str(bad_prefect_yaml(directory)))
    base = baselines(directory)
    deploy_out, _ = deploy.communicate(timeout=90)
    assert deploy.returncode == 0, deploy_out
    runs = asyncio.run(start_runs(base, directory / "nightly"))
    yield {"runs": runs, "bad": bad, "dir": directory, "deploy_out": deploy_out}
    logs = [stop(w) for w in workers]
    print("\n".join(logs)[-3000:])


def flow_run(deployed, name: str):
    return asyncio.run(wait_final(deployed["runs"][name]))


async def child_runs(parent_id: str, flow_name: str):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowFilter, FlowFilterName
    async with get_client() as client:
        runs = await client.read_flow_runs(flow_filter=FlowFilter(name=FlowFilterName(
            any_=[flow_name])))
    return [r for r in runs if r.parameters.get("out", "").find(parent_id[:8]) >= 0]


def test_deployment_is_registered_with_its_cron_schedule(deployed):
    from prefect.client.orchestration import get_client

    async def read():
        async with get_client() as client:
            dep = await client.read_deployment_by_name("agentv-nightly/agentv-nightly")
            shard = await client.read_deployment_by_name("agentv-shard/agentv-shard")
            return dep, shard
    dep, shard = asyncio.run(read())
    assert dep.work_pool_name == POOL and shard.work_pool_name == POOL
    assert [s.schedule.cron for s in dep.schedules] == ["0 3 * * *"]
    assert dep.parameters["threshold"] == 0.1 and dep.parameters["suites"]
    assert "Running check_step step" in deployed["deploy_out"]
    assert "agentv deploy check: deployments/prefect.yaml: 1 deployment(s) ok: agentv-nightly" \
        in deployed["deploy_out"]


def test_sharded_nightly_against_an_unchanged_baseline_completes(deployed):
    run = flow_run(deployed, "sharded")
    assert run.state.type.name == "COMPLETED", run.state.message
    shards = asyncio.run(child_runs(str(run.id), "agentv-shard"))
    assert sorted(r.parameters["shard"] for r in shards) == ["1/2", "2/2"]
    assert all(r.state.type.name == "COMPLETED" and r.work_pool_name == POOL for r in shards)
    merged = Path(shards[0].parameters["out"]).with_name("results.jsonl")
    df = load_results(merged)
    assert len(df) == 6 and df.case_key.nunique() == 6  # 3 cases x 2 trials, both shards
    from tests.flows.test_results_run import read_artifacts
    artifacts = {a.description: a for a in read_artifacts(str(run.id))}
    compare = artifacts["agentv nightly comparison"]
    assert compare.key == "agentv-nightly-compare"
    assert "no significant regression" in compare.data
    assert "agentv: per target × evaluator statistics" in artifacts
    assert "agentv nightly results" in artifacts


def test_planted_regression_ends_failed(deployed):
    run = flow_run(deployed, "regressed")
    assert run.state.type.name == "FAILED"
    assert "regression against" in run.state.message and "-0.300" in run.state.message
    from tests.flows.test_results_run import read_artifacts
    artifacts = read_artifacts(str(run.id))
    compare = next(a for a in artifacts if a.key == "agentv-nightly-compare")
    assert "REGRESSION" in compare.data and "```" not in compare.data
    table = next(a for a in artifacts if a.key == "agentv-nightly-regressions")
    rows = json.loads(table.data) if isinstance(table.data, str) else table.data
    assert rows and all(r["Δ"] < 0 and "/run/results/case/" in r["viewer"] for r in rows)
    assert [r["Δ"] for r in rows] == sorted(r["Δ"] for r in rows)  # worst first
    assert f"[{rows[0]['case']}]({rows[0]['viewer']})" in compare.data


def test_missing_suite_fails_before_any_case(deployed):
    run = flow_run(deployed, "missing")
    assert run.state.type.name == "FAILED"
    assert "no eval file matches this path" in run.state.message
    assert not list((deployed["dir"] / "nightly").glob("*" + str(run.id)[:8]))


def test_nightly_quality_gate_parameter_ends_the_run_failed(deployed):
    run = flow_run(deployed, "gated")
    assert run.state.is_failed(), run.state
    assert run.state.message.startswith("quality gate failed: mean score "), run.state.message
    assert "< fail-under 0.990" in run.state.message


def test_deploy_with_a_missing_suite_stops_before_registering(deployed):
    out, _ = deployed["bad"].communicate(timeout=90)
    assert deployed["bad"].returncode != 0, out
    assert "no-such-suite.yaml" in out and "no eval file matches this path" in out
    errors = [line for line in out.splitlines() if "agentv deploy check" in line]
    assert len(errors) == 1 and errors[0].startswith("error: agentv deploy check: "), out
    assert "Traceback" not in out, out
    from prefect.client.orchestration import get_client
    from prefect.exceptions import ObjectNotFound

    async def read():
        async with get_client() as client:
            await client.read_deployment_by_name("agentv-nightly/agentv-nightly-bad")
    with pytest.raises(ObjectNotFound):
        asyncio.run(read())
