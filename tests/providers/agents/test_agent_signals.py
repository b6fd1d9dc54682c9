"""When agentv itself is interrupted, terminated or killed while an agent program runs (the
real Claude Code, a tool process it started in its own session, a model call that hangs),
nothing of the case is left running: the reaper under every agent takes the tree down."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid

import pytest

from tests.agent_programs import left_in
from tests.conftest import ROOT
from tests.fakes import agent_api_stub

pytestmark = pytest.mark.slow  # end-to-end (docs/development.md: the fast subset)

RUNNER = """
import asyncio, sys
from pathlib import Path
from providers.base import Request
from tests.agent_programs import build
p = build("claude", sys.argv[1], Path(sys.argv[2]), timeout_seconds=120)
asyncio.run(p.invoke(Request("hang", sys.argv[3])))
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_nothing_outlives_agentv(tmp_path, tmp_path_factory, sig):
    url, stub = agent_api_stub.start()
    tag, tmp = uuid.uuid4().hex, tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(ROOT),
           "HOME": str(tmp_path_factory.getbasetemp() / "agent-home")}
    task = f"RUN: setsid sleep 300 {tag} & sleep 0.2; exit 0\nHANG"
    proc = subprocess.Popen([sys.executable, "-c", RUNNER, url, str(tmp_path), task],
                            env=env, cwd=ROOT)
    try:
        deadline = time.monotonic() + 60
        while len(stub.requests) < 2 and time.monotonic() < deadline:  # hanging now
            time.sleep(0.2)
        assert len(stub.requests) >= 2 and tag in _ps()
        proc.send_signal(sig)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while (tag in _ps() or left_in(tmp)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert tag not in _ps() and left_in(tmp) == []
    finally:
        proc.kill()
        stub.stop()


def _ps() -> str:
    return subprocess.run(["ps", "-eww", "-o", "args"], capture_output=True, text=True).stdout
