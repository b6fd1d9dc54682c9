"""A run's stages mirrored to Prefect by the recorder process (the session's server): a
stage runs here and its task run is recorded, artifacts land on it and an artifact's id
comes back when asked for; the ``agentv`` command's process never imports Prefect; a
recorder that dies is a lost recording (the run goes on); an ``agentv`` killed mid-run
leaves its flow run Crashed, and no recorder behind."""
from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time

import pytest

from agentv.flows.prefect.artifact_spec import markdown_artifact
from agentv.flows.prefect.mirror import Mirror
from agentv.flows.prefect.recorder_process import start_recorder
from agentv.flows.prefect.stage import Final, stage
from tests.conftest import ROOT
from tests.flows.prefect.test_recorder import read_back

pytestmark = pytest.mark.slow  # a real recorder process and the session's Prefect server


@stage("run-cases", "run-cases: {label}")
async def batch(label: str, mirror: Mirror) -> str | None:
    mirror.logger().info("batch %s ran", label)
    return await mirror.send(markdown_artifact("agentv-mirror-test", "# cases", "d"),
                             want_id=True)


async def _a_run(mirror: Mirror) -> tuple:
    mirror.open("mirrored run", ["agentv"], {"options": {"workers": 2}})
    made = await mirror.call(batch, "a × t [1/1]", mirror)
    ids = await mirror.ids()
    await mirror.end(Final(False, "1 pass"))
    await asyncio.to_thread(mirror.finish)
    return made, ids


def test_a_stage_runs_here_and_its_task_run_artifact_and_log_are_recorded(prefect_api):
    mirror = Mirror(start_recorder())
    made, (run_id, url) = asyncio.run(_a_run(mirror))
    assert mirror.lost is None and made and url.endswith(run_id)
    run, tasks, arts, logs = read_back(run_id)
    assert run.state.is_completed() and run.state.message == "1 pass"
    [task] = tasks
    assert task.name == "run-cases: a × t [1/1]" and task.state.is_completed()
    [art] = arts
    assert str(art.id) == made and art.task_run_id == task.id
    assert "batch a × t [1/1] ran" in [log.message for log in logs]


def test_a_recorder_that_dies_is_a_lost_recording_and_the_run_goes_on(prefect_api):
    mirror = Mirror(start_recorder())

    async def run() -> object:
        mirror.open("doomed", [], {})
        mirror.proc.kill()
        for _ in range(100):
            if mirror.lost:
                break
            await asyncio.sleep(0.05)
        result = await mirror.call(batch, "b", mirror)  # runs here, unrecorded
        await asyncio.to_thread(mirror.finish)
        return result
    assert asyncio.run(run()) is None
    assert "recorder process ended" in mirror.lost


def _suite(tmp_path):
    (tmp_path / "targets.yaml").write_text(
        "targets:\n  - name: t\n    provider: mock\n    response: yes\n    delay_ms: 200\n")
    cases = "".join(f"  - id: c{i}\n    input: q{i}\n    expected_output: yes\n"
                    for i in range(20))
    (tmp_path / "s.yaml").write_text(f"$schema: agentv-eval-v2\ntarget: t\nevalcases:\n{cases}")
    return tmp_path / "s.yaml"


def test_the_agentv_process_never_imports_prefect(prefect_api, tmp_path):
    probe = ("import atexit, sys\n"
             "atexit.register(lambda: print('PREFECT', 'prefect' in sys.modules))\n"
             "from agentv.flows.cli.main import main\n"
             f"sys.argv = ['agentv', 'eval', {str(_suite(tmp_path))!r}, '--out', "
             f"{str(tmp_path / 'r.jsonl')!r}]\nmain()\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "PREFECT False" in done.stdout and "prefect flow run:" in done.stdout


def test_an_agentv_killed_mid_run_leaves_its_flow_run_crashed_and_no_recorder(prefect_api,
                                                                              tmp_path):
    suite = _suite(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "agentv", "eval", str(suite), "--out",
                             str(tmp_path / "r.jsonl")], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    results = tmp_path / "r.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (results.exists() and results.read_text()):
        time.sleep(0.05)
    recorders = _recorders_of(proc.pid)
    assert recorders, "the run's recorder process"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    for pid in recorders:
        _gone(pid, 60)
    run_id = _last_run_named("s × t")
    run, *_ = read_back(run_id)
    assert run.state.is_crashed()


def _recorders_of(parent: int) -> list[int]:
    deadline = time.monotonic() + 10
    while True:
        out = subprocess.run(["pgrep", "-P", str(parent), "-f",
                              "agentv.flows.prefect.recorder"],
                             capture_output=True, text=True).stdout
        if out.split() or time.monotonic() > deadline:
            return [int(p) for p in out.split()]
        time.sleep(0.1)


def _gone(pid: int, within: float) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        with open(f"/proc/{pid}/stat") as stat:
            if stat.read().split()[2] == "Z":
                return
        time.sleep(0.1)
    raise AssertionError(f"the recorder {pid} outlived its run")


def _last_run_named(prefix: str) -> str:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.sorting import FlowRunSort

    async def read() -> str:
        async with get_client() as client:
            runs = await client.read_flow_runs(sort=FlowRunSort.START_TIME_DESC, limit=20)
            return str(next(r.id for r in runs if r.name.startswith(prefix)))
    return asyncio.run(read())
