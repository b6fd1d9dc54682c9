"""Stopping a recorded background server (Prefect's, the viewer's) signals that very
process: a state file whose pid a later process reuses stops nothing."""
from __future__ import annotations

import json
import subprocess

from agentv.flows.prefect.server import started_at, stop_recorded


def _sleeper() -> subprocess.Popen:
    return subprocess.Popen(["sleep", "30"], start_new_session=True)


def test_the_recorded_process_is_stopped_and_forgotten(tmp_path):
    proc, state = _sleeper(), tmp_path / "server.json"
    state.write_text("{}")
    recorded = {"pid": proc.pid, "started": started_at(proc.pid)}
    assert stop_recorded(recorded, state) is True
    assert proc.wait(timeout=5) == -15 and not state.exists()


def test_a_reused_pid_is_not_signalled(tmp_path):
    proc, state = _sleeper(), tmp_path / "server.json"
    state.write_text(json.dumps({}))
    try:
        reused = {"pid": proc.pid, "started": started_at(proc.pid) - 1}  # another process
        assert stop_recorded(reused, state) is True  # forgotten all the same
        assert proc.poll() is None and not state.exists()
    finally:
        proc.kill()
        proc.wait()
