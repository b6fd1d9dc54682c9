"""The recorder process against the session's Prefect server: what it is told on stdin is
read back through the Prefect API — the flow run, its task runs (a task run whose end was
told with its start created in its final state), artifacts on their task runs, log lines,
the final state and its tags; an input that ends without a final state is a crashed run;
a dead API is reported once, and the recorder still ends."""
from __future__ import annotations

import json
import uuid

import pytest

from agentv.flows.prefect.artifact_spec import markdown_artifact, table_artifact
from agentv.flows.prefect.recorder_process import start_recorder
from tests.flows.prefect_reads import read_flow_run

pytestmark = pytest.mark.slow  # a real recorder process and the session's Prefect server


def record(*messages: dict, env: dict | None = None) -> list[dict]:
    """Tell a recorder ``messages``, end its input; its replies."""
    proc = start_recorder() if env is None else _with_env(env)
    out, _ = proc.communicate("".join(json.dumps(m) + "\n" for m in messages).encode(),
                              timeout=120)
    assert proc.returncode == 0
    return [json.loads(line) for line in out.decode().splitlines()]


def _with_env(env: dict):
    import os
    import subprocess
    import sys
    return subprocess.Popen([sys.executable, "-m", "agentv.flows.prefect.recorder"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env={**os.environ, **env})


def read_back(run_id: str):
    return read_flow_run(run_id)


def opened(replies: list[dict]) -> str:
    [run_id] = [r["id"] for r in replies if r["op"] == "opened"]
    return run_id


def test_a_told_run_reads_back_from_the_api(prefect_api):
    batch, summary = str(uuid.uuid4()), str(uuid.uuid4())
    replies = record(
        {"op": "open", "name": "s × t · now", "tags": ["agentv", "suite:s"],
         "parameters": {"options": {"paths": ["s.yaml"]}}},
        {"op": "task", "id": batch, "name": "run-cases", "run_name": "run-cases: s × t [1/1]"},
        {"op": "artifact", "task": batch,
         "spec": table_artifact([{"eval_id": "c1"}], "Cases of batch", "agentv-batch-x").as_json()},
        {"op": "log", "task": batch, "level": 30, "message": "s × t: 1 of 1 case(s) failed"},
        {"op": "state", "id": batch, "failed": False, "message": ""},
        {"op": "task", "id": summary, "name": "summarize", "run_name": "summarize"},
        {"op": "state", "id": summary, "failed": True, "message": "it broke"},
        {"op": "artifact", "task": None, "seq": 7,
         "spec": markdown_artifact("agentv-summary-x", "# summary", "run summary").as_json()},
        {"op": "final", "failed": False, "name": "Completed with failures",
         "message": "0 pass · 1 fail", "tags": ["has-failures"]})
    assert replies[-1] == {"op": "done"}
    assert not [r for r in replies if r["op"] in ("lost", "warning")], replies
    [made] = [r for r in replies if r["op"] == "artifact"]
    assert made["seq"] == 7 and uuid.UUID(made["id"])
    run, tasks, arts, logs = read_back(opened(replies))
    assert run.name == "s × t · now" and run.parameters == {"options": {"paths": ["s.yaml"]}}
    assert {"agentv", "suite:s", "has-failures"} <= set(run.tags)
    assert run.state.name == "Completed with failures" and run.state.message == "0 pass · 1 fail"
    by_id = {str(t.id): t for t in tasks}
    assert by_id[batch].name == "run-cases: s × t [1/1]" and by_id[batch].state.is_completed()
    assert by_id[summary].state.is_failed() and by_id[summary].state.message == "it broke"
    keys = {a.key: a for a in arts}
    assert str(keys["agentv-batch-x"].task_run_id) == batch
    assert keys["agentv-summary-x"].data == "# summary"
    assert "s × t: 1 of 1 case(s) failed" in [log.message for log in logs]


def test_an_input_that_ends_without_a_final_state_is_a_crashed_run(prefect_api):
    replies = record({"op": "open", "name": "cut short", "tags": [], "parameters": {}})
    run, *_ = read_back(opened(replies))
    assert run.state.is_crashed() and "ended before its run did" in run.state.message


def test_a_dead_api_is_reported_once_and_the_recorder_ends(prefect_api):
    replies = record({"op": "open", "name": "x", "tags": [], "parameters": {}},
                     {"op": "log", "level": 20, "message": "m", "task": None},
                     {"op": "final", "failed": False, "name": None, "message": "", "tags": []},
                     env={"PREFECT_API_URL": "http://127.0.0.1:9/api",
                          "PREFECT_CLIENT_MAX_RETRIES": "0"})
    lost = [r for r in replies if r["op"] == "lost"]
    assert len(lost) == 1 and "127.0.0.1:9" in lost[0]["reason"]
    assert replies[-1] == {"op": "done"}
