"""Signals on a loaded machine: with a CPU hog keeping 20 processes runnable on its core,
SIGTERM still stops a run within its grace period plus 2 s (starting at most its workers'
worth of cases after it), and kill -9 of a loaded run then ``--resume`` still loses and
repeats nothing.
Everything is measured from outside the run: the stub counts the calls it gets, the test
times the exit."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from agentv.tasks.engine.jobs import INTERRUPT_GRACE_S
from tests.conftest import ROOT
from tests.flows.test_crash_safety import wait_for_lines
from tests.stub_llm import start_stub

HOGS = 20
CASES = 500
WORKERS = 8
HOGGED = {0}  # the busy loops and the run under test share the first core: the other
# core stays free for the tests running beside this one (xdist), which the load must not slow


def _on_the_hogged_core() -> None:
    os.sched_setaffinity(0, HOGGED)


@contextmanager
def hogged(count: int = HOGS) -> Iterator[None]:
    """``count`` busy loops: a load of ``count`` (on the one core the run under test gets)."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                             preexec_fn=_on_the_hogged_core) for _ in range(count)]
    try:
        time.sleep(1.0)
        yield
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait()


@pytest.fixture
def cpu_hog() -> Iterator[None]:
    with hogged():
        yield


@pytest.fixture
def stub() -> Iterator[tuple[str, object]]:
    base_url, server = start_stub(latency_ms=100)
    try:
        yield base_url, server
    finally:
        server.stop()


def _suite(root: Path, base_url: str, cases: int = CASES) -> Path:
    (root / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: openai\n"
        f"    model: m\n    base_url: {base_url}\n    api_key: sk-test-1234\n")
    rows = ["$schema: agentv-eval-v2", "evalcases:"]
    for i in range(cases):
        rows += [f"  - id: c{i:03d}", f"    input: 'case {i}'", "    evaluators:",
                 "      - {name: answered, type: contains, value: stub}"]
    (root / "e.yaml").write_text("\n".join(rows) + "\n")
    return root / "e.yaml"


def _start(args: list[str], cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "agentv", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_on_the_hogged_core)


def _keys(path: Path) -> list[str]:
    """The case keys of the whole lines (a kill -9 may leave a torn last one)."""
    whole = path.read_text().rpartition("\n")[0]
    return [json.loads(line)["case_key"] for line in whole.splitlines() if line.strip()]


@pytest.mark.slow
def test_sigterm_on_a_loaded_machine_stops_within_the_grace(prefect_api, tmp_path, stub,
                                                            cpu_hog):
    base_url, server = stub
    out = tmp_path / "r.jsonl"
    proc = _start(["eval", str(_suite(tmp_path, base_url)), "--workers", str(WORKERS),
                   "--out", str(out)], tmp_path)
    wait_for_lines(out, 50, timeout=300)
    proc.send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    stdout, stderr = proc.communicate(timeout=120)
    took = time.monotonic() - signalled
    assert proc.returncode == 143, stderr
    assert took <= INTERRUPT_GRACE_S + 2, (took, stderr[-2000:])
    started_after = [r for r in server.completions() if r.at > signalled]
    assert len(started_after) <= WORKERS, len(started_after)
    recorded = _keys(out)
    assert len(recorded) == len(set(recorded)) < CASES
    assert f"total cases: {len(recorded)}" in stdout and "Traceback" not in stderr


@pytest.mark.slow
def test_kill_9_on_a_loaded_machine_then_resume_loses_and_repeats_nothing(
        prefect_api, tmp_path, stub):
    base_url, server = stub
    suite, out = _suite(tmp_path, base_url, 60), tmp_path / "r.jsonl"
    with hogged(10):  # killed while loaded (10: half the wait); resumed on a quiet machine
        proc = _start(["eval", str(suite), "--workers", str(WORKERS), "--out", str(out)],
                      tmp_path)
        wait_for_lines(out, 20, timeout=300)
        proc.kill()
        proc.wait()
    before = _keys(out)
    proc = _start(["eval", str(suite), "--workers", str(WORKERS), "--resume", str(out)],
                  tmp_path)
    stdout, stderr = proc.communicate(timeout=600)
    assert proc.returncode == 0, stderr[-2000:]
    after = _keys(out)
    assert len(after) == len(set(after)) == 60
    assert after[:len(before)] == before
    assert len(server.completions()) <= 60 + WORKERS  # at most the calls in flight, again


def test_a_held_sigterm_reaches_the_run_at_once_and_nothing_else_does():
    """While SIGTERM is held, the watcher hands a real one to the run's handler at once, and
    only a real one: other signals (a storm of SIGCHLD from exiting children) never look like
    it."""
    from agentv.tasks.engine.jobs import RunControl
    control, said = RunControl(), []
    chld = signal.signal(signal.SIGCHLD, lambda *_: None)  # as a child watcher has it
    try:
        _stop_on_sigterm_only(control, said)
    finally:
        signal.signal(signal.SIGCHLD, chld)
    assert control.stop_signal == signal.SIGTERM and "terminated (SIGTERM)" in said[0]


def _stop_on_sigterm_only(control, said: list) -> None:
    from agentv.flows.signals import interrupt_handler, sigterm_held
    with sigterm_held(), interrupt_handler(control, said.append):
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:  # children exit: SIGCHLD, again and again
            subprocess.run(["true"], check=True)
        assert not control.stopping and said == []
        os.kill(os.getpid(), signal.SIGTERM)
        deadline = time.monotonic() + 2
        while not control.stopping and time.monotonic() < deadline:
            time.sleep(0.01)
