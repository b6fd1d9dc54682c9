"""The nightly's default baseline, on the session's Prefect server: the nightly flow called
directly (as a deployment run calls it) twice on the bundled example — the first run finds
no baseline and warns loudly, the second compares with the first — then ``agentv baseline
promote`` pins a run; and the runs are named after suite, target and date."""
from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentv.tasks.results.baselines import find_baseline, read_index, run_key
from tests.conftest import EXAMPLE, run_cli

pytestmark = pytest.mark.slow  # every test here starts a Prefect server or runs `agentv eval`

SUITE = str(EXAMPLE / "evals" / "example.test.yaml")


async def _nightly(out_dir: Path) -> tuple[object, object, list[str]]:
    """(flow run, its result, its log messages)."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import LogFilter, LogFilterFlowRunId
    from prefect.logging.handlers import APILogWorker

    from agentv.deployments.nightly import nightly_flow
    state = await nightly_flow(suites=[SUITE], dry_run=True, out_dir=str(out_dir),
                               return_state=True)
    result = await state.result()
    await APILogWorker.drain_all(timeout=5)
    run_id = state.state_details.flow_run_id
    async with get_client() as client:
        run = await client.read_flow_run(run_id)
        logs = await client.read_logs(LogFilter(flow_run_id=LogFilterFlowRunId(any_=[run_id])))
    return run, result, [log.message for log in logs]


@pytest.fixture(scope="module")
def runs(prefect_api, tmp_path_factory):
    """Two nightly runs in this process, on the session's server (Prefect's settings were
    read when it was first imported here, possibly while another test's server was up)."""
    from prefect.settings import PREFECT_API_URL, temporary_settings
    out_dir = tmp_path_factory.mktemp("nightly")
    with temporary_settings(updates={PREFECT_API_URL: prefect_api}):
        first = asyncio.run(_nightly(out_dir))
        second = asyncio.run(_nightly(out_dir))
    return out_dir, first, second


def test_first_run_has_no_baseline_and_says_so_loudly(runs):
    _, (_, result, logs), _ = runs
    assert result["baseline"] is None and result["regression"] is None
    warning = next(m for m in logs if m.startswith("NO BASELINE"))
    assert "agentv baseline promote" in warning and "index.jsonl" in warning


def test_second_run_compares_with_the_last_successful_run(runs):
    out_dir, (_, first, _), (_, second, logs) = runs
    assert second["baseline"] == str(Path(first["results"]).resolve())
    assert second["regression"] is False and "summary" in second
    assert any(m.startswith("baseline: last successful run") for m in logs)
    entries = read_index(out_dir)
    assert [e["ok"] for e in entries] == [True, True]
    assert {e["key"] for e in entries} == {run_key(None, [SUITE])}


def test_runs_are_named_after_suite_target_and_date(runs):
    _, (run, _, _), _ = runs
    date = run.start_time.strftime("%Y-%m-%d") if run.start_time else ""
    assert run.name.startswith(f"nightly · example × default · {date}")


def test_promote_pins_a_run_over_later_successful_ones(runs):
    out_dir, (_, first, _), (_, second, _) = runs
    done = run_cli("baseline", "promote", first["results"])
    assert done.returncode == 0, done.stderr
    assert "baseline of local | " in done.stdout
    pinned = find_baseline(out_dir, run_key(None, [SUITE]))
    assert pinned["pinned"] and pinned["results"] == str(Path(first["results"]).resolve())
    assert Path(second["results"]).exists()


def test_promote_refuses_a_file_no_nightly_wrote(tmp_path):
    stray = tmp_path / "results.jsonl"
    stray.write_text("{}\n", encoding="utf-8")
    done = run_cli("baseline", "promote", str(stray))
    assert done.returncode == 2 and done.stderr.startswith("error: ")
    assert "not a nightly run's results" in done.stderr and "Traceback" not in done.stderr
