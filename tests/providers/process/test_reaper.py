"""The supervisor (``providers/process/reaper.py``) under the signals a real agentv run produces.

The kernel's parent-death signal fires when the *thread* that started the supervisor exits, and
once per hop while a dying multi-threaded agentv hands its children from thread to thread; so
a ``kill -9`` of agentv delivers a burst of signals. Nothing may outlive the supervisor in
any of these cases, and an agent must not die because a thread of a live agentv ended."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from agentv.providers.process.supervision import supervised
from tests import TESTS
from tests.providers.process.test_supervision import FORKER, gone, scratch, tagged, wait_ready

THREADED_PARENT = TESTS / "fakes" / "threaded_parent.py"


def forker(tag: str, ready: Path) -> list[str]:
    return [sys.executable, str(FORKER), tag, str(ready), "hang"]


@pytest.mark.slow
def test_the_agent_outlives_the_thread_that_started_it(tmp_path):
    tag, ready = f"agentv-tree-{uuid.uuid4().hex}", tmp_path / "ready"
    started: list[subprocess.Popen] = []

    def start_then_exit() -> None:  # like a worker thread of agentv that ends
        argv = supervised(forker(tag, ready), None, None, scratch(ready.parent))
        started.append(subprocess.Popen(argv,
                                        start_new_session=True))
        wait_ready(ready, 1)

    thread = threading.Thread(target=start_then_exit)
    thread.start()
    thread.join()
    time.sleep(1.5)
    try:
        assert [line for line in tagged(tag) if "forker.py" in line], "the agent was killed"
        assert started[0].poll() is None
    finally:
        started[0].terminate()
        assert started[0].wait(30) == 128 + signal.SIGTERM
    assert gone(tag) == []


@pytest.mark.slow
def test_kill_9_of_a_multithreaded_parent_leaves_nothing(tmp_path):
    for attempt in range(6):  # the signal burst's timing varies: several rounds
        tag, ready = f"agentv-tree-{uuid.uuid4().hex}", tmp_path / f"ready-{attempt}"
        parent = subprocess.Popen([sys.executable, str(THREADED_PARENT), tag, str(ready), "12"])
        try:
            wait_ready(ready, 1)
            assert len(tagged(tag)) >= 5  # forker, its three sleepers, the reaper
        finally:
            parent.kill()
            parent.wait()
        assert gone(tag) == [], f"round {attempt}"


@pytest.mark.slow
def test_a_burst_of_signals_to_the_supervisor_still_leaves_nothing(tmp_path):
    for attempt, sig in enumerate([signal.SIGTERM, signal.SIGINT, signal.SIGHUP] * 2):
        tag, ready = f"agentv-tree-{uuid.uuid4().hex}", tmp_path / f"ready-{attempt}"
        reaper = subprocess.Popen(supervised(forker(tag, ready), None, None, scratch(ready.parent)),
                                  start_new_session=True, stderr=subprocess.PIPE)
        wait_ready(ready, 1)
        for n in range(40):
            try:
                os.kill(reaper.pid, sig if n % 2 else signal.SIGUSR1)
            except ProcessLookupError:
                break
            time.sleep(0.0005 * (n % 4))
        assert reaper.wait(30) == 128 + sig
        assert reaper.stderr.read() == b""  # no traceback
        reaper.stderr.close()
        assert gone(tag) == [], f"{sig!r}"


def test_a_parent_that_died_before_the_supervisor_started_runs_nothing(tmp_path):
    tag, ready = f"agentv-tree-{uuid.uuid4().hex}", tmp_path / "ready"
    argv = supervised(forker(tag, ready), None, None, scratch(ready.parent))
    argv[4] = "--parent=1"  # the expected parent is not ours: it is already gone
    done = subprocess.run(argv, capture_output=True, timeout=30)
    assert done.returncode == 128 + signal.SIGTERM
    assert not ready.exists() and tagged(tag) == []
