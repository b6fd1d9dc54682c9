"""Quality gates, evaluator errors, the offline heuristic judge and how a run shows up in
Prefect (flow-run name, tags, keyed artifacts), end to end: the real `agentv eval` in a
subprocess against the session's real Prefect server, read back through the Prefect API."""
from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from agentv.providers.heuristic_judge import OFFLINE_LABEL
from tests.conftest import EXAMPLE

EXAMPLE_EVAL = EXAMPLE / "evals" / "example.test.yaml"
KEY = re.compile(r"^[a-z0-9-]+$")


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def flow_run_id(stdout: str) -> str:
    return re.search(r"flow-run/([0-9a-f-]{36})", stdout).group(1)


def read_run(run_id: str):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

    async def read():
        async with get_client() as client:
            run = await client.read_flow_run(run_id)
            arts = await client.read_artifacts(artifact_filter=ArtifactFilter(
                flow_run_id=ArtifactFilterFlowRunId(any_=[run.id])))
            return run, arts
    return asyncio.run(read())


def table(artifact) -> list[dict]:
    """A table artifact's rows (the API returns them as JSON text)."""
    data = artifact.data
    return json.loads(data) if isinstance(data, str) else data


def gated_suite(tmp_path: Path, execution: str = "", script: str = "score.py") -> Path:
    (tmp_path / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: mock\n"
        "    response: the answer is 42\n")
    (tmp_path / "score.py").write_text(
        "import json,sys\nc=json.load(sys.stdin)\nn=int(c['eval_id'].split('-')[1])\n"
        "print(json.dumps({'score': n / 3, 'hits': [], 'misses': [], 'reasoning': 'n'}))\n")
    cases = "".join(
        f"  - id: case-{i}\n    input: question {i}\n    execution:\n      evaluators:\n"
        f"        - {{name: py, type: code_judge, script: [python3, {script}]}}\n"
        for i in range(4))
    f = tmp_path / "gated.yaml"
    f.write_text("$schema: agentv-eval-v2\n" + execution + "evalcases:\n" + cases)
    return f


@pytest.mark.slow
def test_fail_under_exits_1_and_the_flow_run_ends_failed_with_the_reason(cli, tmp_path):
    out = tmp_path / "r.jsonl"
    proc = cli("eval", str(EXAMPLE_EVAL), "--out", str(out), "--fail-under", "0.8")
    assert proc.returncode == 1, proc.stderr
    assert "QUALITY GATE FAILED: mean score 0.667 < fail-under 0.800" in proc.stdout
    assert "Finished in state Failed" not in proc.stderr  # said once, in the summary
    assert len(records(out)) == 3  # everything is written all the same
    run, arts = read_run(flow_run_id(proc.stdout))
    assert run.state.is_failed()
    assert "quality gate failed: mean score 0.667 < fail-under 0.800" in run.state.message
    summary = next(a for a in arts if a.key == "agentv-summary-example-default")
    assert "Quality gate FAILED" in summary.data


@pytest.mark.slow
def test_passing_gates_exit_0_and_bad_gate_values_are_config_errors(cli, tmp_path):
    proc = cli("eval", str(EXAMPLE_EVAL), "--out", str(tmp_path / "r.jsonl"),
               "--fail-under", "0.2", "--min-pass-rate", "0.3")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "QUALITY GATE" not in proc.stdout
    assert read_run(flow_run_id(proc.stdout))[0].state.is_completed()
    bad = cli("eval", str(EXAMPLE_EVAL), "--min-pass-rate", "90")
    assert bad.returncode == 2
    assert bad.stderr.strip() == \
        "error: --min-pass-rate: must be a number between 0 and 1, got 90.0"


@pytest.mark.slow
def test_execution_gates_in_the_eval_file(cli, tmp_path):
    f = gated_suite(tmp_path, "execution:\n  min_pass_rate: 0.5\n")
    proc = cli("eval", str(f), "--targets", str(tmp_path / "targets.yaml"),
               "--out", str(tmp_path / "r.jsonl"))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert ("QUALITY GATE FAILED: gated (execution): pass rate 25.0% < min-pass-rate 50.0%"
            in proc.stdout)
    bad = gated_suite(tmp_path, "execution:\n  fail_under: high\n")
    proc = cli("eval", str(bad), "--targets", str(tmp_path / "targets.yaml"))
    assert proc.returncode == 2
    assert re.match(r"error: .*gated\.yaml:3: fail_under: must be a number between 0 and 1",
                    proc.stderr), proc.stderr


@pytest.mark.slow
def test_evaluator_errors_are_counted_listed_and_fail_on_error(cli, tmp_path):
    # a judge script that crashes (a missing script is a configuration error: exit 2)
    (tmp_path / "broken_judge.py").write_text("raise RuntimeError('judge crashed')\n")
    f = gated_suite(tmp_path, script="broken_judge.py")
    targets = str(tmp_path / "targets.yaml")
    proc = cli("eval", str(f), "--targets", targets, "--out", str(tmp_path / "a.jsonl"))
    assert proc.returncode == 0, proc.stderr
    assert "errors: cases 0, evaluators 4" in proc.stdout
    errors = proc.stdout.split("ERRORS")[1].split("SUMMARY")[0]
    assert re.search(r"gated\.yaml:case-0:py \[default\]: script exited with code 1", errors)
    assert "judge crashed" in errors
    proc = cli("eval", str(f), "--targets", targets, "--out", str(tmp_path / "b.jsonl"),
               "--fail-on-error")
    assert proc.returncode == 1
    assert "0 case error(s) and 4 evaluator error(s) with fail-on-error" in proc.stdout
    _, arts = read_run(flow_run_id(proc.stdout))
    cases = table(next(a for a in arts if a.key == "agentv-cases-gated-default"))
    assert len(cases) == 4 and all("py:" in row["error"] for row in cases)


@pytest.mark.slow
def test_unparseable_judge_reply_is_asked_again_then_an_evaluator_error(cli, tmp_path):
    (tmp_path / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: mock\n"
        "    response: hi\n    judge_response: I think it is fine, 8/10\n")
    f = tmp_path / "j.yaml"
    f.write_text("$schema: agentv-eval-v2\nevalcases:\n  - id: one\n    input: hello\n"
                 "    expected_outcome: greets\n")
    proc = cli("eval", str(f), "--targets", str(tmp_path / "targets.yaml"),
               "--out", str(tmp_path / "r.jsonl"))
    assert proc.returncode == 0, proc.stderr
    assert "errors: cases 0, evaluators 1" in proc.stdout
    errors = proc.stdout.split("ERRORS")[1].split("SUMMARY")[0]
    assert re.search(r"j\.yaml:one:llm_judge \[default\]: .*broke the output contract twice",
                     errors), errors
    judged = records(tmp_path / "r.jsonl")[0]["evaluator_results"][0]
    call = judged["judge_call"]
    assert (call["attempts"], call["asks"]) == (2, 2) and call["wait_ms"] < 1  # no limit waited


@pytest.mark.slow
def test_bundled_example_passes_and_fails_for_the_reasons_it_shows(cli, tmp_path):
    """The toy agent passes two cases and fails one on purpose; the judge is the offline
    heuristic judge, and the records and the summary say so."""
    out = tmp_path / "r.jsonl"
    proc = cli("eval", str(EXAMPLE_EVAL), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    by_id = {r["eval_id"]: r for r in records(out)}
    scores = {eval_id: {e["name"]: e["score"] for e in r["evaluator_results"]}
              for eval_id, r in by_id.items()}
    assert scores == {
        "plain-greeting": {"offers-help": 1.0, "judge-says": 1.0},
        "review-javascript-with-guidelines": {"rubric": 1.0, "gives-the-fix": 1.0,
                                              "mentions-marker": 1.0},
        "multiturn-debugging": {"gives-the-fix": 0.0, "judge-says": 0.0}}
    failing = by_id["multiturn-debugging"]
    assert failing["candidate_answer"].startswith("(toy agent: no rule matches this question")
    assert "missing: 'range(len(items))'" in failing["misses"]
    assert "does not mention 'range'" in failing["misses"]
    review = by_id["review-javascript-with-guidelines"]["candidate_answer"]
    assert "`i < items.length`" in review and "SUPERSECRET_INSTRUCTION_MARKER" in review
    for record in by_id.values():
        judged = [e for e in record["evaluator_results"] if e["type"] == "llm_judge"]
        assert judged and all(e["reasoning"].startswith(OFFLINE_LABEL) for e in judged)
    assert f"note: judge: {OFFLINE_LABEL} on target judge" in proc.stdout
    assert "mean: 0.667" in proc.stdout and "pass rate: 66.7%" in proc.stdout
    assert "bottom: multiturn-debugging (0.000)" in proc.stdout


@pytest.mark.slow
def test_flow_run_name_tags_and_artifact_keys(cli, tmp_path):
    proc = cli("eval", str(EXAMPLE_EVAL), "--out", str(tmp_path / "r.jsonl"))
    assert proc.returncode == 0, proc.stderr
    run, arts = read_run(flow_run_id(proc.stdout))
    assert re.match(r"example × default · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$", run.name), run.name
    assert {"agentv", "suite:example", "target:default", "dataset:example"} <= set(run.tags)
    pages = [a for a in arts if (a.key or "").startswith("agentv-case-example-")]
    assert pages and all(" — failed case · target default · trial 0 (agentv)" in a.description
                         for a in pages)  # a failed case's page: keyed, titled by its id
    assert not [a for a in arts if a.key is None]
    assert min(arts, key=lambda a: a.created).key == "agentv-view-example-default"
    keys = {a.key for a in arts} - {None}
    assert all(KEY.match(k) for k in keys), keys
    assert {"agentv-cases-example-default", "agentv-stats-example-default",
            "agentv-summary-example-default", "agentv-results-file-example-default",
            "agentv-parquet-file-example-default"} <= keys
    cases = table(next(a for a in arts if a.key == "agentv-cases-example-default"))
    row = next(r for r in cases if r["eval_id"] == "multiturn-debugging")
    assert row["verdict"] == "fail" and "range(len(items))" in row["misses"]
    assert OFFLINE_LABEL in row["reasoning"] and row["error"] == ""
    wall = float(re.search(r"wall time: ([\d.]+)s", proc.stdout).group(1))
    summary = next(a for a in arts if a.key == "agentv-summary-example-default").data
    assert f"| {wall:.2f}s |" in summary  # the artifact's wall time is the console's


@pytest.mark.slow
def test_trials_top_and_bottom_list_each_case_once(cli, tmp_path):
    proc = cli("eval", str(EXAMPLE_EVAL), "--out", str(tmp_path / "r.jsonl"), "--trials", "3")
    assert proc.returncode == 0, proc.stderr
    top = re.search(r"top: (.*)", proc.stdout).group(1)
    bottom = re.search(r"bottom: (.*)", proc.stdout).group(1)
    listed = re.findall(r"([\w-]+) \(", top + ", " + bottom)
    assert sorted(listed) == ["multiturn-debugging", "plain-greeting",
                              "review-javascript-with-guidelines"]


@pytest.mark.slow
def test_help_and_version(cli):
    help_text = cli("eval", "--help", env={"COLUMNS": "200"}).stdout
    assert "default: the target's workers setting, else 1" in help_text
    assert "--fail-under" in help_text and "SCORE" in help_text and "<str>" not in help_text
    version = cli("--version")
    assert version.returncode == 0 and re.match(r"agentv \d+\.\d+", version.stdout)


def test_gate_and_summary_units():
    from agentv.tasks.load.gates import Gates
    from agentv.tasks.results.gates import check_gates
    summary = {"total": 4, "mean": 0.5, "pass_rate": 0.25, "errors": 1, "evaluator_errors": 2}
    # not said: a case error (no answer) fails the run; evaluator errors alone do not
    assert check_gates(summary, Gates()) == [
        "execution errors: 1 of 4 case(s) errored (--no-fail-on-error lets a run with errors "
        "pass)"]
    assert check_gates({**summary, "errors": 0}, Gates()) == []
    assert check_gates(summary, Gates(fail_on_error=False)) == []
    assert check_gates(summary, Gates(fail_under=0.5, min_pass_rate=0.25,
                                      fail_on_error=False)) == []
    assert check_gates(summary, Gates(fail_on_error=True)) == [
        "1 case error(s) and 2 evaluator error(s) with fail-on-error"]
    assert check_gates({"total": 0}, Gates(fail_under=0.1)) == ["no case ran"]
    from agentv.flows.prefect.naming import artifact_key
    long = artifact_key("cases", [f"Suite_{i}.Name" for i in range(20)], ["Azure GPT-4o"])
    assert KEY.match(long) and len(long) <= 90
    assert artifact_key("cases", ["My Suite"], ["gpt_4o"]) == "agentv-cases-my-suite-gpt-4o"


def test_summary_markdown_shows_both_error_counts():
    from agentv.tasks.results.summary_md import summary_markdown
    text = summary_markdown({"total": 0, "errors": 0, "evaluator_errors": 0, "histogram": [0] * 5,
                             "top": [], "bottom": [], "notes": ["n1"],
                             "gate_failures": ["no case ran"]}, 1.234, {})
    assert "errors (cases / evaluators)" in text and "1.23s" in text
    assert "- no case ran" in text and "**Note:** n1" in text
