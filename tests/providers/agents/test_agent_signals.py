"""When agentv itself is interrupted, terminated or killed while an agent program runs (the
real Claude Code, Copilot CLI and pi, a tool process each started in its own session, a model
call that hangs), nothing of the case is left running: the reaper under every agent takes the
tree down. Once through a provider in a small runner, once through ``agentv eval`` running
the three programs at the same time."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
import yaml

from agentv.providers.process.reaper import descendants
from tests.agent_programs import (
    KEY,
    PROGRAMS,
    background_sleep,
    left_in,
    provider_class,
    settings,
    sleepers,
)
from tests.conftest import ROOT, real_tool
from tests.fakes import agent_api_stub

pytestmark = pytest.mark.slow  # end-to-end (docs/development.md: the fast subset)

RUNNER = """
import asyncio, faulthandler, signal, sys
from pathlib import Path
faulthandler.register(signal.SIGUSR1, all_threads=True)  # the test's look at a slow exit
from agentv.providers.base import Request
from tests.agent_programs import build
p = build("claude", sys.argv[1], Path(sys.argv[2]), timeout_seconds=120)
asyncio.run(p.invoke(Request("hang", sys.argv[3])))
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_nothing_outlives_agentv(tmp_path, tmp_path_factory, sig):
    url, stub = agent_api_stub.start()
    (mark, command), tmp = background_sleep(), tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(ROOT),
           "HOME": str(tmp_path_factory.getbasetemp() / "agent-home")}
    task = f"RUN: {command}\nHANG"
    proc = subprocess.Popen([sys.executable, "-c", RUNNER, url, str(tmp_path), task],
                            env=env, cwd=ROOT, preexec_fn=_plain_signals)
    try:
        deadline = time.monotonic() + 60
        while len(stub.requests) < 2 and time.monotonic() < deadline:  # hanging now
            time.sleep(0.2)
        assert len(stub.requests) >= 2 and sleepers(mark) == 1
        proc.send_signal(sig)
        exited_in(proc, 60)  # a loaded CI machine: its SIGINT exit once took over 30 s
        deadline = time.monotonic() + 10
        while (sleepers(mark) or left_in(tmp)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert sleepers(mark) == 0 and left_in(tmp) == []
    finally:
        proc.kill()
        stub.stop()


def _plain_signals() -> None:
    """The runner starts as from a terminal: SIGINT handled by default and no signal blocked.
    A child inherits ignored and blocked signals, and an earlier test in the same xdist worker
    can leave SIGINT so (once in CI the runner's main task never saw the signal: its stacks
    showed the loop idle, the conversation with Claude Code still waited on)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


def exited_in(proc: subprocess.Popen, seconds: float) -> None:
    """The runner exits within ``seconds``; else its threads' stacks are printed (SIGUSR1:
    faulthandler) before the test fails, to say where it hung."""
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGUSR1)
        time.sleep(2)
        raise AssertionError(f"the runner did not exit within {seconds} s of the signal "
                             "(its stacks: the captured stderr)") from None


def _ps() -> str:
    return subprocess.run(["ps", "-eww", "-o", "args"], capture_output=True, text=True).stdout


ARGV_MARKS = ("stream-json", "--usage-output-file", "--mode json")  # claude, copilot, pi


def _started(pid: int) -> str | None:
    """A live process's start time (with its pid, it names the process even after pid
    reuse); None when it is gone or a zombie."""
    try:
        stat = open(f"/proc/{pid}/stat", "rb").read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2:].split()
    return None if fields[0] in (b"Z", b"X") else fields[19].decode()


def _cmdline(pid: int) -> str:
    try:
        return open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _suite(tmp_path, url: str, command: str) -> list[str]:
    targets = [{"name": p, "provider": provider_class(p).kind, "executable": real_tool(p),
                **settings(p, url), "api_key": "${{ AGENT_STUB_KEY }}", "timeout_seconds": 120}
               for p in PROGRAMS]
    (tmp_path / "targets.yaml").write_text(yaml.safe_dump(
        {"$schema": "agentv-targets-v2", "targets": targets}, sort_keys=False))
    (tmp_path / "hang.yaml").write_text(yaml.safe_dump({
        "$schema": "agentv-eval-v2", "target": "claude", "evalcases": [
            {"id": "hang", "expected_outcome": "never",
             "input": f"RUN: {command}\nHANG"}]}))
    return ["eval", "hang.yaml", "--workers", "3", "--out", "r.jsonl",
            *[a for p in PROGRAMS for a in ("--target", p)]]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_agentv_eval_leaves_no_process_of_any_agent(prefect_api, tmp_path, tmp_path_factory,
                                                    sig):
    """``agentv eval`` runs Claude Code, Copilot CLI and pi at once, each waiting on a model
    call after starting a tool process in its own session; agentv gets ``sig``. Every
    process below agentv at that moment — reapers, the programs, their tools — is gone."""
    url, stub = agent_api_stub.start()
    (mark, command), tmp = background_sleep(), tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(ROOT), "AGENT_STUB_KEY": KEY,
           "HOME": str(tmp_path_factory.getbasetemp() / "agent-home")}
    proc = subprocess.Popen([sys.executable, "-m", "agentv",
                             *_suite(tmp_path, url, command)], env=env, cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while (sleepers(mark) < len(PROGRAMS) or len(stub.requests) < 2 * len(PROGRAMS)) \
                and time.monotonic() < deadline:  # every program's model call hangs now
            time.sleep(0.2)
        tree = {pid: _started(pid) for pid in descendants(proc.pid)}
        lines = " ".join(_cmdline(pid) for pid in tree)
        assert sleepers(mark) == len(PROGRAMS), (len(stub.requests), lines)
        assert all(flag in lines for flag in ARGV_MARKS), lines  # the three programs
        proc.send_signal(sig)
        proc.wait(timeout=60)
        deadline = time.monotonic() + 15
        alive = tree
        while alive and time.monotonic() < deadline:
            time.sleep(0.2)
            alive = {pid: t for pid, t in tree.items() if t and _started(pid) == t}
        assert alive == {} and sleepers(mark) == 0 and left_in(tmp) == []
    finally:
        proc.kill()
        stub.stop()
