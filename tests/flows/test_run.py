"""The one ``Run`` and its one job runner: nothing of a run outlives it; ``--prefect-tasks
case`` shows every case as task runs and writes the records batch mode writes; under Dask
``--workers`` bounds the whole run; the typed API shards and runs on Dask."""
from __future__ import annotations

import asyncio
import gc
import json
from pathlib import Path

import pytest

from agentv.evaluators import exact_match
from agentv.flows.dataset import run_dataset
from agentv.tasks.api.dataset import Dataset, Sample
from tests.conftest import EXAMPLE, run_cli
from tests.stub_llm import start_stub

TIMING = ("timestamp", "latency_ms", "wait_ms", "duration_ms")


def _alive(*names: str, besides: frozenset[int] = frozenset()) -> list[str]:
    """Objects of these types alive now (``besides``: ids alive before, e.g. a Dask worker
    thread's plan cache in this process from another test)."""
    gc.collect()
    return [type(o).__name__ for o in gc.get_objects() if type(o).__name__ in names
            and type(o).__module__.startswith(("agentv.flows.", "agentv.tasks."))
            and id(o) not in besides]


RUN_OBJECTS = ("Plan", "TargetRuntime", "CaseRunner", "CallableProvider",
               "ResultWriter", "JobRunner", "Job", "EvalCase", "HeadStart", "RunLedger")


def _samples(n: int) -> Dataset:
    return Dataset(tuple(Sample(str(i), i, i + 1) for i in range(n)))


def add_one(value: int) -> int:
    return value + 1


@pytest.mark.slow
def test_nothing_of_three_runs_stays_alive(prefect_api, tmp_path):
    import agentv.flows.pipeline
    import agentv.flows.runners.distributed
    gc.collect()
    before = frozenset(id(o) for o in gc.get_objects() if type(o).__name__ in RUN_OBJECTS)
    for i in range(3):
        report = run_dataset(_samples(4), add_one, exact_match, out=str(tmp_path / f"{i}.jsonl"))
        assert report.total == 4 and report.pass_rate == 1.0
    assert _alive(*RUN_OBJECTS, besides=before) == []
    # Prefect's event loop thread keeps the contexts of some task runs (their arguments):
    # a run it still holds is an empty shell
    from agentv.flows.run import Run
    shells = [o for o in gc.get_objects() if isinstance(o, Run)]
    assert all(not hasattr(s, "plan") and not hasattr(s, "runtimes") for s in shells)
    assert not hasattr(agentv.flows.pipeline, "RUNS")
    assert not hasattr(agentv.flows.runners.distributed, "_PLANS")


@pytest.mark.slow
def test_the_typed_api_runs_one_shard(prefect_api, tmp_path):
    first = run_dataset(_samples(7), add_one, exact_match, shard="1/3",
                        out=str(tmp_path / "1.jsonl"))
    second = run_dataset(_samples(7), add_one, exact_match, shard="2/3",
                         out=str(tmp_path / "2.jsonl"))
    assert [r.sample_id for r in first.results] == ["0", "3", "6"]
    assert [r.sample_id for r in second.results] == ["1", "4"]


def _strip(record: dict) -> dict:
    out = {k: v for k, v in record.items() if k not in TIMING}
    for key in ("trace_summary", "usage"):
        if isinstance(out.get(key), dict):
            out[key] = {k: v for k, v in out[key].items() if k not in TIMING}
    return out


def _records(path: Path) -> dict[str, dict]:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return {r["case_key"]: _strip(r) for r in rows}


async def _task_run_names(flow_run_id: str, at_least: int) -> list[str]:
    """The flow run's task run names, once the server has recorded ``at_least`` of them."""
    return list(await _task_run_tags(flow_run_id, at_least))


async def _task_run_tags(flow_run_id: str, at_least: int) -> dict[str, list[str]]:
    """The flow run's task run names and their tags (``_task_run_names``)."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId
    names: dict[str, list[str]] = {}
    async with get_client() as client:
        for _ in range(120):
            runs = await client.read_task_runs(
                flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[flow_run_id])),
                limit=200)
            names = {r.name: list(r.tags) for r in runs}
            if len(names) >= at_least:
                break
            await asyncio.sleep(0.5)
    return names


@pytest.mark.slow
def test_case_mode_shows_every_case_and_writes_the_records_batch_mode_writes(prefect_api,
                                                                              tmp_path):
    from agentv.flows.launch import run_eval
    from agentv.tasks.plan.plan import EvalOptions
    suite = str(EXAMPLE / "evals" / "example.test.yaml")
    outcomes = {}
    for mode in ("batch", "case"):
        opts = EvalOptions(paths=[suite], dry_run=True, trials=2, workers=4,
                           out=str(tmp_path / f"{mode}.jsonl"), prefect_tasks=mode)
        outcomes[mode] = run_eval(opts, log=lambda _: None)
    batch, case = _records(tmp_path / "batch.jsonl"), _records(tmp_path / "case.jsonl")
    assert len(case) == 6 and case == batch
    # load-and-expand, preflight-targets, 2 per case, summarize
    names = asyncio.run(_task_run_tags(outcomes["case"]["flow_run_id"], 3 + 2 * 6))
    ids = sorted({r["eval_id"] for r in case.values()})
    target = {r["eval_id"]: r["target"] for r in case.values()}
    for eval_id in ids:
        for trial in (1, 2):
            for task in ("invoke-provider", "run-evaluators"):
                name = f"{task}: {eval_id} [trial {trial}]"
                assert name in names, names
                assert f"target:{target[eval_id]}" in names[name]  # tag concurrency limits
    assert not any(n.startswith("run-cases") for n in names)
    batch_names = asyncio.run(_task_run_names(outcomes["batch"]["flow_run_id"], 4))
    assert any(n.startswith("run-cases") for n in batch_names)
    assert not any(n.startswith("invoke-provider") for n in batch_names)


@pytest.mark.slow
def test_case_mode_does_not_combine_with_dask(tmp_path):
    proc = run_cli("eval", str(EXAMPLE / "evals" / "example.test.yaml"), "--dry-run",
                   "--prefect-tasks", "case", "--task-runner", "dask")
    assert proc.returncode == 2 and "--prefect-tasks" in proc.stderr, proc.stderr
    proc = run_cli("eval", str(EXAMPLE / "evals" / "example.test.yaml"), "--dry-run",
                   "--prefect-tasks", "cases")
    assert proc.returncode == 2 and "unknown mode 'cases'" in proc.stderr, proc.stderr


def _stub_suite(directory: Path, base_url: str, files: int, cases: int) -> list[str]:
    (directory / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: stub\n    provider: openai\n"
        f"    model: stub-model\n    base_url: {base_url}\n    api_key: sk-session-test\n")
    paths = []
    for f in range(files):
        rows = ["$schema: agentv-eval-v2", "target: stub", "evalcases:"]
        for i in range(cases):
            rows += [f"  - id: f{f}-case-{i}", f'    input: "Say ok {f}-{i}"',
                     "    evaluators:", "      - {name: any, type: contains, value: ''}"]
        path = directory / f"suite{f}.yaml"
        path.write_text("\n".join(rows) + "\n")
        paths.append(str(path))
    return paths


@pytest.mark.slow
def test_under_dask_workers_bound_the_whole_run(prefect_api, tmp_path):
    """Two Dask workers with two threads each run four batches at once; --workers 3 still
    means at most three provider calls in flight across the cluster."""
    pytest.importorskip("prefect_dask", reason="pip install -e '.[dask]'")
    from distributed import Client, LocalCluster
    base_url, stub = start_stub(latency_ms=150)
    try:
        paths = _stub_suite(tmp_path, base_url, files=1, cases=40)
        with LocalCluster(n_workers=2, threads_per_worker=2, processes=False, protocol="tcp",
                          dashboard_address=None) as cluster, Client(cluster) as client:
            out = tmp_path / "dask.jsonl"
            proc = run_cli("eval", *paths, "--workers", "3", "--out", str(out),
                           "--task-runner", "dask", "--dask-address", cluster.scheduler_address,
                           timeout=240)
            # the run's plans left the workers with the run (flows/runners/worker_plans.py)
            held = client.run(lambda dask_worker: [name for name in dask_worker.plugins
                                                   if name.startswith("agentv-plans")])
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert held and not any(held.values()), held
        assert len(out.read_text().splitlines()) == 40
        assert 2 <= stub.max_inflight <= 3, stub.max_inflight
    finally:
        stub.stop()


@pytest.mark.slow
def test_a_dask_batch_with_more_waiting_cases_than_lease_threads_finishes(prefect_api,
                                                                          tmp_path):
    """640 cases are 8 batches of 80 on one single-threaded worker, --workers 4: 76 cases of
    a batch wait for a lease, more than its 64 lease threads. Releases must not queue behind
    them (they did: the run hung with 4 leases held and nothing in flight)."""
    pytest.importorskip("prefect_dask", reason="pip install -e '.[dask]'")
    from distributed import LocalCluster
    base_url, stub = start_stub(latency_ms=5)
    try:
        paths = _stub_suite(tmp_path, base_url, files=1, cases=640)
        with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                          dashboard_address=None) as cluster:
            out = tmp_path / "dask.jsonl"
            proc = run_cli("eval", *paths, "--workers", "4", "--out", str(out),
                           "--task-runner", "dask", "--dask-address", cluster.scheduler_address,
                           timeout=240)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert len(out.read_text().splitlines()) == 640
        assert stub.max_inflight <= 4, stub.max_inflight
    finally:
        stub.stop()


@pytest.mark.slow
def test_the_typed_api_runs_on_dask(prefect_api, tmp_path):
    pytest.importorskip("prefect_dask", reason="pip install -e '.[dask]'")
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        report = run_dataset(_samples(24), add_one, exact_match, workers=4,
                             task_runner="dask", dask_address=cluster.scheduler_address,
                             out=str(tmp_path / "dask.jsonl"))
        executed = client.run(lambda dask_worker: dask_worker.state.executed_count)
    assert report.total == 24 and report.pass_rate == 1.0
    assert [r.sample_id for r in report.results] == [str(i) for i in range(24)]
    assert sum(executed.values()) >= 2  # 24 samples in 2 batches, run on the workers


def _start(args: list[str], cwd: Path):
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "agentv", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
@pytest.mark.parametrize("latency_ms, finished", [(2000, True), (12000, False)])
def test_ctrl_c_reaches_the_dask_workers_with_the_grace_period(prefect_api, tmp_path,
                                                               latency_ms, finished):
    """Ctrl-C in the flow's process: the workers start nothing new; calls in flight finish
    within the grace period (2 s) or are cancelled after it (12 s): not recorded."""
    import signal
    import time
    pytest.importorskip("prefect_dask", reason="pip install -e '.[dask]'")
    from distributed import Client, LocalCluster
    base_url, stub = start_stub(latency_ms=latency_ms)
    try:
        paths = _stub_suite(tmp_path, base_url, files=1, cases=40)
        out = tmp_path / "r.jsonl"
        with LocalCluster(n_workers=2, threads_per_worker=2, processes=False, protocol="tcp",
                          dashboard_address=None) as cluster, Client(cluster):
            proc = _start(["eval", *paths, "--workers", "4", "--out", str(out),
                           "--task-runner", "dask", "--dask-address",
                           cluster.scheduler_address], tmp_path)
            deadline = time.monotonic() + 90
            while len(stub.requests) < 4 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(stub.requests) == 4  # --workers 4 across the cluster
            proc.send_signal(signal.SIGINT)
            t0 = time.monotonic()
            stdout, stderr = proc.communicate(timeout=60)
            stopped_in = time.monotonic() - t0
        assert proc.returncode == 130, stdout + stderr
        recorded = [json.loads(line) for line in out.read_text().splitlines()]
        assert len(stub.requests) == 4  # nothing new started after the signal
        assert len(recorded) == (4 if finished else 0)
        assert f"interrupted: {40 - len(recorded)} case(s) not run" in stdout
        assert stopped_in < (25 if finished else 10), stopped_in
        assert "Traceback" not in stderr
    finally:
        stub.stop()


@pytest.mark.slow
def test_the_nightly_deployment_checks_its_prefect_tasks_parameter(tmp_path):
    from agentv.deployments.nightly import PREFECT_YAML, check_deployment_file
    from agentv.providers.errors import ConfigError
    from tests.conftest import ROOT
    assert "agentv-nightly" in check_deployment_file(PREFECT_YAML)
    text = PREFECT_YAML.read_text().replace("prefect_tasks: batch", "prefect_tasks: cases")
    text = text.replace("data/examples/", f"{ROOT}/data/examples/")
    bad = tmp_path / "prefect.yaml"
    bad.write_text(text)
    with pytest.raises(ConfigError, match="unknown mode 'cases'"):
        check_deployment_file(bad)


@pytest.mark.slow
def test_a_dask_worker_rebuilds_the_plan_with_a_local_runs_concurrency(prefect_api):
    """--workers 128 bounds the cluster (its semaphore); the plan a worker rebuilds from the
    options (validated as a local run's) runs at most 50 at once per batch. (It imports
    Prefect in this process: after the session's server is in its settings, else every
    later in-process Prefect client of this worker talks to a temporary server.)"""
    from agentv.flows.runners.distributed import remote_options
    options = remote_options({"paths": ["e.yaml"], "workers": 128, "task_runner": "dask",
                              "dask_address": "tcp://127.0.0.1:8786"})
    assert options["workers"] == 50 and "task_runner" not in options
    assert remote_options({"paths": [], "workers": 8})["workers"] == 8
