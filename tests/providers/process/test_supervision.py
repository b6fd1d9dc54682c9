"""Process hygiene, checked with ``ps``: agents and code judges that fork, ``setsid`` and
sleep leave nothing behind — after a timeout, after the agent answers (background children
holding stdout must not turn the answer into a timeout), on cancellation, and when the real
``agentv eval`` gets SIGINT, SIGTERM or SIGKILL."""
from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import yaml

from agentv.providers.agents.cli import CliProvider
from agentv.providers.base import ProviderTimeout, Request, Target
from agentv.providers.process.sandbox import Profile
from agentv.providers.process.supervision import run_process
from tests import TESTS
from tests.conftest import ROOT

FORKER = TESTS / "fakes" / "forker.py"


def scratch(folder: Path) -> Profile:
    """A sandbox whose scratch is ``folder`` (the forker's ready files go there)."""
    return Profile("target", writable=(str(folder),))


def tagged(tag: str) -> list[str]:
    """``ps`` lines of live processes whose command line holds ``tag``."""
    out = subprocess.run(["ps", "-eww", "-o", "pid,ppid,pgid,sid,stat,args"], capture_output=True,
                         text=True, check=True).stdout
    return [line for line in out.splitlines()[1:]
            if tag in line and "<defunct>" not in line and "ps -eww" not in line]


def gone(tag: str, within: float = 10.0) -> list[str]:
    deadline = time.monotonic() + within
    while (left := tagged(tag)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def wait_ready(ready: Path, count: int, within: float = 90.0) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if ready.is_dir() and len(list(ready.iterdir())) >= count:
            return
        time.sleep(0.1)
    raise AssertionError(f"only {list(ready.iterdir()) if ready.is_dir() else []} became ready")


@pytest.mark.slow
def test_timeout_kills_setsid_and_background_children(tmp_path):
    tag = f"agentv-tree-{uuid.uuid4().hex}"
    argv = [sys.executable, str(FORKER), tag, str(tmp_path / "ready"), "hang"]
    with pytest.raises(Exception) as err:
        asyncio.run(run_process(argv, timeout=2, sandbox=scratch(tmp_path)))
    assert "timed out" in str(err.value)
    assert gone(tag) == []


def test_answer_is_read_at_the_agents_exit_not_at_eof_of_inherited_pipes(tmp_path):
    tag = f"agentv-tree-{uuid.uuid4().hex}"
    provider = CliProvider(Target("agent", "cli", {
        "command_template": f"{sys.executable} {FORKER} {tag} {tmp_path} answer",
        "sandbox": "off",  # the forker writes its ready files outside any scratch
        "timeout_seconds": 60}))
    provider.check()
    started = time.monotonic()
    response = asyncio.run(provider.invoke(Request("case-1", "q")))
    assert response.text == "the answer"
    assert time.monotonic() - started < 20  # not the helpers' 300 s, not the timeout
    assert gone(tag) == []


def test_cancellation_kills_the_tree(tmp_path):
    tag = f"agentv-tree-{uuid.uuid4().hex}"
    argv = [sys.executable, str(FORKER), tag, str(tmp_path / "ready"), "hang"]

    async def cancel_when_ready():
        task = asyncio.ensure_future(run_process(argv, timeout=120,
                                               sandbox=scratch(tmp_path)))
        while not (tmp_path / "ready").is_dir():
            await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    asyncio.run(cancel_when_ready())
    assert gone(tag) == []


@pytest.mark.slow
def test_cli_timeout_is_a_retryable_timeout_and_leaves_nothing(tmp_path):
    tag = f"agentv-tree-{uuid.uuid4().hex}"
    provider = CliProvider(Target("agent", "cli", {
        "command_template": f"{sys.executable} {FORKER} {tag} {tmp_path / 'r'} hang",
        "sandbox": "off",  # the forker writes its ready files outside any scratch
        "timeout_seconds": 1.5}))
    provider.check()
    with pytest.raises(ProviderTimeout):
        asyncio.run(provider.invoke(Request("case-1", "q")))
    assert gone(tag) == []


def agentv_run(tmp_path: Path, tag: str, timeout: float) -> tuple[list[str], Path]:
    """A suite whose agent hangs in one case and whose code judge hangs in the other."""
    ready = tmp_path / "ready"
    targets = {"$schema": "agentv-targets-v2", "targets": [{
        "name": "agent", "provider": "cli", "timeout_seconds": timeout, "max_retries": 0,
        "command_template": f"{sys.executable} {FORKER} {tag}-agent {ready} {{EVAL_ID}}"}]}
    (tmp_path / "targets.yaml").write_text(yaml.safe_dump(targets))
    judge = {"name": "tree", "type": "code_judge", "timeout_seconds": timeout,
             "script": [sys.executable, str(FORKER), f"{tag}-judge", str(ready), "hang"]}
    suite = {"$schema": "agentv-eval-v2", "target": "agent",
             "execution": {"evaluators": [judge]},
             "evalcases": [{"id": "hang", "input": "q"}, {"id": "answer", "input": "q"}]}
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(suite))
    argv = [sys.executable, "-m", "agentv", "eval", str(tmp_path / "s.yaml"), "--out",
            str(tmp_path / "r.jsonl"), "--workers", "2",
            "--allow-path", str(FORKER.parent),  # the judge script lives beside the tests
            "--no-sandbox"]  # the forkers write their ready files outside any scratch
    return argv, ready


def spawn_agentv(argv: list[str], cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    return subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_signals_to_agentv_leave_no_agent_or_judge_process(prefect_api, tmp_path, sig):
    tag = f"agentv-tree-{uuid.uuid4().hex}"
    argv, ready = agentv_run(tmp_path, tag, timeout=300)
    proc = spawn_agentv(argv, tmp_path)
    try:
        wait_ready(ready, 2)  # the agent of 'hang' and the judge of 'answer' are running
        assert len(tagged(tag)) >= 8  # 2 × (forker + setsid helper + child + daemon)
        proc.send_signal(sig)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert gone(tag) == [], proc.stderr.read()[-2000:]


@pytest.mark.slow
def test_agentv_timeouts_leave_no_agent_or_judge_process(cli, tmp_path):
    tag = f"agentv-tree-{uuid.uuid4().hex}"
    argv, _ready = agentv_run(tmp_path, tag, timeout=2)
    proc = cli(*argv[3:], cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    records = (tmp_path / "r.jsonl").read_text()
    assert "timed out" in records
    assert gone(tag) == []
