"""Fixtures of the flows tests."""
from __future__ import annotations

import os
import signal
import time

import pytest


@pytest.fixture
def own_prefect_server(tmp_path, monkeypatch):
    """A Prefect server of the test's own (to kill, or to prune), started as agentv starts
    its own, under the test's AGENTV_HOME; PREFECT_API_URL points at it."""
    from agentv.flows.prefect import server
    monkeypatch.setenv("AGENTV_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    url = server.start_server(wait=False)
    pid = server.read_state()["pid"]
    deadline = time.monotonic() + 300  # a loaded machine: a minute or more
    while not server.healthy(url) and time.monotonic() < deadline:
        time.sleep(0.5)
    monkeypatch.setenv("PREFECT_API_URL", url)
    yield url, pid
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
