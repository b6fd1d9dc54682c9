"""A run with passing, failing and errored cases, as Prefect and the console show it: the
real `agentv eval --prefect-tasks case` in a subprocess against the session's Prefect
server, read back through the Prefect API (state name and message, tags, the failures
artifact, the run's logs, each case's task runs)."""
from __future__ import annotations

import json
import re

import pytest

from tests.flows.artifacts.test_gates_ui import flow_run_id
from tests.flows.prefect_reads import read_flow_run

SCRIPT = ("import json,sys\nc=json.load(sys.stdin)\nn=int(c['eval_id'].split('-')[1])\n"
          "if n == 3: raise RuntimeError('judge crashed \\x1b[31m on purpose')\n"
          "print(json.dumps({'score': n / 4, 'hits': [], 'misses': ['no 42'],"
          " 'reasoning': f'answer {n} | off by {4 - n}'}))\n")


EXPECTED_TASKS = {f"{kind}: case-{i}" for kind in ("invoke-provider", "run-evaluators")
                  for i in (0, 1, 3, 4)}


def suite(tmp_path):
    (tmp_path / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: mock\n"
        "    response: the answer is 42\n")
    (tmp_path / "score.py").write_text(SCRIPT)
    cases = "".join(
        f"  - id: case-{i}\n    input: question {i}\n    execution:\n      evaluators:\n"
        f"        - {{name: exact, type: code_judge, script: [python3, score.py]}}\n"
        for i in (0, 1, 3, 4))
    f = tmp_path / "mixed.yaml"
    f.write_text("$schema: agentv-eval-v2\nevalcases:\n" + cases)
    return f


def read_back(run_id: str):
    run, tasks, arts, logs = read_flow_run(run_id, EXPECTED_TASKS)
    return run, arts, [log.message for log in logs], {t.name: t.state for t in tasks}


@pytest.fixture(scope="module")
def mixed_run(prefect_api, tmp_path_factory):
    from tests.conftest import run_cli
    tmp = tmp_path_factory.mktemp("mixed")
    proc = run_cli("eval", str(suite(tmp)), "--targets", str(tmp / "targets.yaml"),
                   "--out", str(tmp / "r.jsonl"), "--show-failures", "2",
                   "--prefect-tasks", "case")
    return proc, *read_back(flow_run_id(proc.stdout))


@pytest.mark.slow
def test_the_flow_run_state_carries_the_counts_and_is_not_plain_completed(mixed_run):
    proc, run, _, _, _ = mixed_run
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert run.state.is_completed()
    assert run.state.name == "Completed with failures"
    assert run.state.message == "1 pass · 2 fail · 1 error · mean 0.312"
    assert "has-failures" in run.tags


@pytest.mark.slow
def test_the_failures_artifact_lists_failed_cases_worst_first_with_the_reason(mixed_run):
    _, _, arts, _, _ = mixed_run
    art = next(a for a in arts if a.key == "agentv-failures-mixed-default")
    rows = [line for line in art.data.splitlines() if line.startswith("- **")]
    assert [re.search(r"case-\d", r).group(0) for r in rows] == ["case-3", "case-0", "case-1"]
    assert "judge crashed \\\\x1b\\[31m on purpose" in rows[0]  # escaped, not a terminal code
    assert rows[2].startswith("- **fail 0.250** · case-1 · default · trial 0 — exact (0.25 "
                              "fail): answer 1 \\| off by 3 · [case details](")
    assert all(re.search(r" · \[case details\]\(http://127\.0\.0\.1:\d+/artifacts/artifact/"
                         r"[0-9a-f-]{36}\)$", row) for row in rows)
    assert "1 pass · 2 fail · 1 error" in art.description


@pytest.mark.slow
def test_one_log_line_per_failed_case(mixed_run):
    _, _, _, logs, _ = mixed_run
    failed = [m for m in logs if m.startswith("FAILED ")]
    assert len(failed) == 3
    heading = logs.index(failed[0]) - 1  # the summary's first lines: the failed cases
    assert logs[heading].startswith("3 failed case(s) (1 pass · 2 fail · 1 error · mean 0.312)"
                                    ", worst first; every case: http://127.0.0.1:")
    assert logs[heading].endswith("/run/r")
    assert any(m.startswith("FAILED case-1 [default] trial 0: fail score 0.250 — exact")
               for m in failed)


@pytest.mark.slow
def test_the_first_artifact_links_the_run_in_the_viewer(mixed_run):
    _, _, arts, _, _ = mixed_run
    first = min(arts, key=lambda a: a.created)
    assert first.key == "agentv-view-mixed-default"
    assert re.search(r"\(http://127\.0\.0\.1:\d+/run/r\)", first.data), first.data


@pytest.mark.slow
def test_the_console_lists_the_worst_failures_and_no_prefect_error_line(mixed_run):
    proc = mixed_run[0]
    block = proc.stdout.split("FAILED (")[1].split("SUMMARY")[0]
    lines = [line for line in block.splitlines()[1:] if line.strip()]
    assert lines[0].startswith("  case-3 [default]: error 0.000 - exact: error:")
    assert lines[1].startswith("  case-0 [default]: fail 0.000 - exact (0.00 fail): answer 0")
    assert lines[2] == "  ... and 1 more (--show-failures N shows more)"
    assert "\x1b[31m" not in proc.stdout
    assert "Finished in state Failed" not in proc.stderr  # FAILED says it once


@pytest.mark.slow
def test_a_failed_case_task_run_is_failed_with_the_reason_a_passing_one_completed(mixed_run):
    proc, _, _, _, tasks = mixed_run
    assert tasks["run-evaluators: case-4"].is_completed()
    failed = tasks["run-evaluators: case-1"]
    assert failed.is_failed()
    assert failed.message == "case failed (fail 0.250): exact (0.25 fail): answer 1 | off by 3"
    assert tasks["run-evaluators: case-3"].message.startswith(
        "case failed (fail 0.000): exact: error: script exited with code 1")
    assert tasks["invoke-provider: case-1"].is_completed()  # the target answered
    assert "Task run failed" not in proc.stderr  # the FAILED block says it, once
    assert "'candidate_answer'" not in proc.stderr  # Prefect never dumps a record


@pytest.mark.slow
def test_each_failed_case_has_its_page_and_the_table_a_column_per_evaluator(mixed_run):
    _, _, arts, _, _ = mixed_run
    keyed = {a.key: a for a in arts if (a.key or "").startswith("agentv-case-")}
    assert sorted(k.rsplit("-", 1)[0] for k in keyed) == [
        f"agentv-case-mixed-case-{i}-default-t0" for i in (0, 1, 3)]
    pages = {a.description: a.data for a in keyed.values()}
    title = "case-{} — failed case · target default · trial 0 (agentv)".format
    assert sorted(pages) == [title(i) for i in (0, 1, 3)]
    page = pages[title(1)]
    for seen in ("**fail 0.250** — exact", "## Input", "question 1", "## Answer",
                 "the answer is 42", "### exact — fail 0.250", "answer 1 | off by 3", "- no 42"):
        assert seen in page, seen
    assert "judge crashed" in pages[title(3)]
    data = next(a.data for a in arts if a.key == "agentv-cases-mixed-default")
    table = {row["eval_id"]: row for row in (json.loads(data) if isinstance(data, str) else data)}
    assert list(table["case-1"])[:5] == ["eval_id", "trial", "verdict", "score", "⚖ exact"]
    assert table["case-1"]["⚖ exact"] == "0.25 fail: answer 1 | off by 3"
    assert (table["case-1"]["input"], table["case-1"]["answer"]) == \
        ("question 1", "the answer is 42")
