"""Real runs: Parquet + JUnit beside the results, Prefect artifacts read back from the API,
trials in the console summary, the HTML report in headless Chromium, and the case batches
on a two-worker Dask cluster through prefect-dask."""
from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest

from agentv.tasks.results.frames import load_results
from agentv.tasks.results.tidy import load_evaluators
from tests.conftest import EXAMPLE, ROOT, run_cli

pytestmark = pytest.mark.slow  # end-to-end (docs/development.md: the fast subset)

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"]
JUDGE = """import json, sys
from pathlib import Path
case = json.load(sys.stdin)
eid = case["eval_id"]
counter = Path(__file__).with_name(f"count-{eid}")
n = int(counter.read_text()) if counter.exists() else 0
counter.write_text(str(n + 1))
score = {"steady": 1.0, "always-bad": 0.1}.get(eid, 1.0 if n % 2 == 0 else 0.0)
print(json.dumps({"score": score, "hits": [], "misses": [] if score else ["flaked"],
                  "reasoning": f"{eid} scored {score}"}))
"""


def trial_suite(directory: Path) -> Path:
    """Three cases under a code judge: one passes, one fails, one alternates per trial."""
    (directory / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: mock\n"
        "    response: mock answer\n")
    (directory / "judge.py").write_text(JUDGE)
    cases = "".join(
        f"  - id: {eid}\n    expected_outcome: expected for {eid}\n"
        f"    input: question about {eid}\n    execution:\n      evaluators:\n"
        f"        - {{name: scripted, type: code_judge, script: [python3, judge.py]}}\n"
        for eid in ("steady", "always-bad", "flaky"))
    path = directory / "trials.yaml"
    path.write_text("$schema: agentv-eval-v2\ntrials: 4\nevalcases:\n" + cases)
    return path


@pytest.fixture(scope="module")
def trial_run(prefect_api, tmp_path_factory):
    """One real `agentv eval` of the trial suite with --junit (shared by several tests)."""
    directory = tmp_path_factory.mktemp("trial-run")
    suite = trial_suite(directory)
    out = directory / "results.jsonl"
    # the judge keeps its per-trial count in a file beside itself: the sandbox would keep the
    # suite read-only, so this run (about results, not containment) goes without it
    proc = run_cli("eval", str(suite), "--out", str(out), "--junit", str(directory / "junit.xml"),
                   "--no-sandbox")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return {"dir": directory, "out": out, "proc": proc,
            "flow_run_id": re.search(r"flow-run/([0-9a-f-]{36})", proc.stdout).group(1)}


def test_run_writes_parquet_with_the_jsonl_records(trial_run):
    out = trial_run["out"]
    parquet = out.with_suffix(".parquet")
    assert parquet.is_file() and f"parquet: {parquet}" in trial_run["proc"].stdout
    pd.testing.assert_frame_equal(load_results(out), load_results(parquet))
    df = load_results(parquet)
    assert len(df) == 12 and sorted(df.trial.unique()) == [0, 1, 2, 3]
    assert set(df.expected_outcome) == {f"expected for {e}" for e in ("steady", "always-bad",
                                                                      "flaky")}
    ev = load_evaluators(parquet)  # one row per case × evaluator, no JSON to parse
    assert len(ev) == 12 and set(ev.evaluator) == {"scripted"} and set(ev.run) == {"results"}
    bad = ev[ev.eval_id == "always-bad"]
    assert set(bad.reasoning) == {"always-bad scored 0.1"} and set(bad.verdict) == {"fail"}
    flaky = ev[ev.eval_id == "flaky"]
    assert sorted(map(list, flaky.misses)) == [[], [], ["flaked"], ["flaked"]]
    one_liner = (f"from tasks.results.frames import load_results; "
                 f"print(round(load_results('{parquet}').score.mean(), 4))")
    proc = subprocess.run([sys.executable, "-c", one_liner], capture_output=True, text=True,
                          cwd=ROOT)
    assert proc.stdout.strip() == str(round(df.score.mean(), 4)) == "0.5333"


def test_console_summary_reports_trials(trial_run):
    stdout = trial_run["proc"].stdout
    assert "trials: 3 case(s) x 4 trials   pass@1: 0.500   pass@4: 0.667   pass^4: 0.333" \
        in stdout
    assert "trials disagree: flaky" in stdout
    assert "pass rate: 50.0%" in stdout and "95% CI of mean" in stdout


def test_junit_file(trial_run):
    root = ET.parse(trial_run["dir"] / "junit.xml").getroot()
    assert root.attrib["tests"] == "12" and root.attrib["failures"] == "6"
    names = [c.attrib["name"] for c in root.iter("testcase")]
    assert "flaky [trial 1]" in names and len(names) == 12


def read_artifacts(flow_run_id: str):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

    async def read():
        async with get_client() as client:
            return await client.read_artifacts(artifact_filter=ArtifactFilter(
                flow_run_id=ArtifactFilterFlowRunId(any_=[flow_run_id])))
    return asyncio.run(read())


def test_prefect_artifacts_exist_after_the_run(trial_run):
    artifacts = read_artifacts(trial_run["flow_run_id"])
    by_description = {a.description: a for a in artifacts}
    table = by_description["agentv: per target × evaluator statistics"]
    rows = json.loads(table.data) if isinstance(table.data, str) else table.data
    overall = next(r for r in rows if r["evaluator"] == "(overall)")
    assert overall["n"] == 12 and overall["pass_rate"] == 0.5
    assert {"median", "std", "error_rate", "p50_latency_ms", "p95_latency_ms", "tokens",
            "cost_usd"} <= set(overall)
    assert any(r["evaluator"] == "scripted" for r in rows)
    summary = by_description["agentv run summary"].data
    assert "## Score histogram" in summary and "pass@4" in summary
    links = {d: a.data for d, a in by_description.items() if d.endswith("file")}
    assert set(links) == {"agentv results file", "agentv parquet file", "agentv junit file"}
    assert "file://" in links["agentv parquet file"]
    assert sum(a.description.startswith("Cases of batch") for a in artifacts) >= 1


def test_bad_scale_and_trial_flags_exit_2(tmp_path):
    example = str(EXAMPLE / "evals" / "example.test.yaml")
    for args, needle in ((["--trials", "0"], "--trials: must be a whole number from 1 to 1000"),
                         (["--shard", "3/2"], "--shard: needs 1 <= I <= N"),
                         (["--task-runner", "spark"], "unknown task runner 'spark'")):
        proc = run_cli("eval", example, "--dry-run", "--out", str(tmp_path / "x.jsonl"), *args)
        assert proc.returncode == 2 and needle in proc.stderr, proc.stderr


def chromium_dom(page: Path, tmp_path: Path, fragment: str = "") -> str:
    proc = subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}",
                           "--dump-dom", page.as_uri() + fragment], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install chromium)")
def test_html_report_renders_in_headless_chromium(trial_run, tmp_path):
    page = tmp_path / "report.html"
    proc = run_cli("report", str(trial_run["out"].with_suffix(".parquet")), "-o", str(page))
    assert proc.returncode == 0 and f"report: {page}" in proc.stdout, proc.stderr
    html = page.read_text()
    assert not re.search(r"src\s*=\s*['\"]?(https?:)?//", html)  # nothing from a network
    links = re.findall(r"href\s*=\s*['\"]?((?:https?:)?//[^'\" >]+)", html)
    assert all("/flow-runs/flow-run/" in link for link in links), links  # the run's Prefect page
    assert "<link" not in html and "@import" not in html
    dom = chromium_dom(page, tmp_path)  # the viewer's run page (tasks/view/)
    assert 'data-rendered="1"' in dom  # the page's own script ran in the browser
    for table in ('id="cases"', 'id="evaluators"', "pass^k", "disagreeing"):
        assert table in dom, table
    assert re.search(r'<tr class="row bad" data-case="always-bad">', dom)
    case = chromium_dom(page, tmp_path, "#/case/results/always-bad/0/default")
    for text in ("question about always-bad", "expected for always-bad", "mock answer",
                 "always-bad scored 0.1"):
        assert text in case, text


def test_case_batches_run_on_a_two_worker_dask_cluster(prefect_api, tmp_path):
    """Two single-thread workers (threads of this process, reached over TCP by the CLI's
    flow process: the batches are pickled and shipped like on any cluster)."""
    pytest.importorskip("prefect_dask", reason="pip install -e '.[dask]'")
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        out = tmp_path / "dask.jsonl"
        proc = run_cli("eval", str(EXAMPLE / "evals" / "example.test.yaml"), "--dry-run",
                       "--trials", "8", "--out", str(out), "--task-runner", "dask",
                       "--dask-address", cluster.scheduler_address)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        executed = client.run(lambda dask_worker: dask_worker.state.executed_count)
    df = load_results(out)
    assert len(df) == 24 and df.case_key.nunique() == 24
    assert sorted(df.trial.unique()) == list(range(8))
    assert len(executed) == 2 and all(count >= 1 for count in executed.values()), executed
    assert sum(executed.values()) == 3  # 24 jobs in 3 batches
    assert "total cases: 24" in proc.stdout
