"""AgentV 4.x's run options, end to end: ``python -m flows.eval`` in a subprocess, a real
Prefect server, the mock target or the loopback LLM stub (tests/stub_llm.py)."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.conftest import run_cli

pytestmark = pytest.mark.slow  # every test here starts a Prefect server or runs `agentv eval`

SCORER = ("import json,sys\nc=json.load(sys.stdin)\nn=int(c['eval_id'].split('-')[1])\n"
          "print(json.dumps({'score': (n % 5) / 4, 'hits': [], 'misses': [], "
          "'reasoning': 'n'}))\n")


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run(*args: str, cwd: Path | None = None):
    return run_cli(*args, cwd=cwd, module="agentv.flows.eval")


def write_suite(folder: Path, n: int = 5, targets: str = "", meta: str = "",
                cases: str | None = None) -> Path:
    """``folder/s.yaml``: cases case-0 … scored (n % 5) / 4 by a code_judge; the targets
    file beside it: ``default`` (the mock) and ``targets``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: mock\n"
        "    response: the answer is 42\n" + textwrap.indent(textwrap.dedent(targets), "  "))
    (folder / "score.py").write_text(SCORER)
    body = cases or "".join(
        f"  - id: case-{i}\n    input: question {i}\n    execution:\n      evaluators:\n"
        f"        - {{name: py, type: code_judge, script: [python3, score.py]}}\n"
        for i in range(n))
    path = folder / "s.yaml"
    path.write_text("$schema: agentv-eval-v2\n" + meta + "evalcases:\n" + body)
    return path


def test_test_id_globs_repeat_and_eval_id_stays_an_alias(cli, tmp_path):
    f = write_suite(tmp_path, n=6)
    out = tmp_path / "r.jsonl"
    proc = run(str(f), "--test-id", "case-1", "--test-id", "case-[45]", "--eval-id", "case-0",
               "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert sorted(r["eval_id"] for r in records(out)) == ["case-0", "case-1", "case-4", "case-5"]


def test_repeated_target_runs_the_case_by_target_matrix(cli, tmp_path):
    f = write_suite(tmp_path, n=3, targets="""\
        - name: other
          provider: mock
          response: another answer
    """)
    out = tmp_path / "r.jsonl"
    proc = run(str(f), "--target", "default", "--target", "other", "--target", "other",
               "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    pairs = sorted((r["eval_id"], r["target"], r["candidate_answer"]) for r in records(out))
    assert pairs == sorted((f"case-{i}", t, a) for i in range(3) for t, a in
                           (("default", "the answer is 42"), ("other", "another answer")))
    assert len({r["case_key"] for r in records(out)}) == 6
    summary = proc.stdout.split("per target:")[1]
    assert "default  cases: 3   mean: 0.250" in summary
    assert "other    cases: 3   mean: 0.250" in summary


def test_threshold_decides_each_verdict_and_fails_the_run(cli, tmp_path):
    f = write_suite(tmp_path, n=5)  # scores 0, .25, .5, .75, 1
    out = tmp_path / "r.jsonl"
    proc = run(str(f), "--threshold", "0.5", "--out", str(out))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdicts = {r["eval_id"]: r["verdict"] for r in records(out)}
    assert verdicts == {"case-0": "fail", "case-1": "fail", "case-2": "pass", "case-3": "pass",
                        "case-4": "pass"}
    assert "note: threshold: 3/5 case(s) scored >= 0.50" in proc.stdout
    assert "QUALITY GATE FAILED: 2 of 5 case(s) scored below threshold 0.50" in proc.stdout
    assert "pass rate: 60.0%" in proc.stdout
    ok = run(str(f), "--threshold", "0", "--out", str(tmp_path / "r0.jsonl"))
    assert ok.returncode == 0, ok.stdout + ok.stderr


def test_tags_select_eval_files(cli, tmp_path):
    smoke = write_suite(tmp_path / "a", n=2, meta="metadata:\n  tags: [smoke, fast]\n")
    slow = write_suite(tmp_path / "b", n=2, meta="metadata:\n  tags: [slow]\n")
    out = tmp_path / "r.jsonl"
    proc = run(str(smoke), str(slow), "--tag", "smoke", "--tag", "fast", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert {r["case_key"].split("::")[0].split("/")[-2] for r in records(out)} == {"a"}
    proc = run(str(smoke), str(slow), "--exclude-tag", "fast", "--out", str(out))
    assert {r["case_key"].split("::")[0].split("/")[-2] for r in records(out)} == {"b"}
    none = run(str(smoke), str(slow), "--tag", "nightly", "--out", str(tmp_path / "x.jsonl"))
    assert none.returncode == 2
    assert none.stderr.strip() == ("error: --tag: no eval file matches --tag nightly "
                                   "(2 file(s) checked: tags are the eval file's own)")
    assert not (tmp_path / "x.jsonl").exists()


def test_each_eval_file_runs_on_its_own_default_target(cli, tmp_path):
    first = write_suite(tmp_path / "one", n=2)
    second = write_suite(tmp_path / "two", n=2)
    (tmp_path / "two" / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: mock\n"
        "    response: suite two's own default\n")
    out = tmp_path / "r.jsonl"
    proc = run(str(first), str(second), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    answers = {(Path(r["case_key"].split("::")[0]).parent.name, r["eval_id"]):
               (r["target"], r["candidate_answer"]) for r in records(out)}
    assert answers == {("one", "case-0"): ("default", "the answer is 42"),
                       ("one", "case-1"): ("default", "the answer is 42"),
                       ("two", "case-0"): ("default", "suite two's own default"),
                       ("two", "case-1"): ("default", "suite two's own default")}


FLAKY_CASES = textwrap.dedent("""\
      - id: case-1
        input: fine
      - id: case-2
        input: boom
        execution: {target: flaky}
      - id: case-3
        input: fine too
""")


def test_retry_errors_runs_only_the_errors_into_a_new_file(cli, tmp_path):
    f = write_suite(tmp_path, targets="- {name: flaky, provider: mock, error: upstream down}\n",
                    cases=textwrap.indent(FLAKY_CASES, "  "))
    first = tmp_path / "r1.jsonl"
    assert run(str(f), "--out", str(first)).returncode == 1  # its errors fail the run
    assert [r["eval_id"] for r in records(first) if r["error"]] == ["case-2"]
    write_suite(tmp_path, targets="- {name: flaky, provider: mock, response: back up}\n",
                cases=textwrap.indent(FLAKY_CASES, "  "))
    second = tmp_path / "r2.jsonl"
    proc = run(str(f), "--retry-errors", str(first), "--out", str(second))
    assert proc.returncode == 0, proc.stderr
    assert "1 case(s) run again, 2 record(s) kept" in proc.stderr
    before = {r["eval_id"]: r for r in records(first)}
    after = {r["eval_id"]: r for r in records(second)}
    assert sorted(after) == ["case-1", "case-2", "case-3"] and len(records(second)) == 3
    assert after["case-2"]["error"] is None and after["case-2"]["candidate_answer"] == "back up"
    for kept in ("case-1", "case-3"):  # copied, not run again
        assert after[kept]["timestamp"] == before[kept]["timestamp"]
    assert "total cases: 3" in proc.stdout


def test_rerun_failed_continues_the_file_running_its_failures_again(cli, tmp_path):
    f = write_suite(tmp_path, n=5)  # case-4 scores 1.0: the only pass
    out = tmp_path / "r.jsonl"
    assert run(str(f), "--out", str(out)).returncode == 0
    before = {r["eval_id"]: r for r in records(out)}
    proc = run(str(f), "--rerun-failed", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "4 to run again" in proc.stderr
    after = {r["eval_id"]: r for r in records(out)}
    assert len(records(out)) == 5 and sorted(after) == sorted(before)
    assert after["case-4"]["timestamp"] == before["case-4"]["timestamp"]
    assert all(after[k]["timestamp"] != before[k]["timestamp"] for k in
               ("case-0", "case-1", "case-2", "case-3"))
    assert len(records(tmp_path / "r.jsonl.replaced")) == 4
    proc = run(str(f), "--rerun-failed", str(out), "--threshold", "0.7")
    assert proc.returncode == 1  # case-0..2 run again and still score below 0.7
    assert "3 to run again" in proc.stderr


@pytest.fixture
def priced_stub():
    from tests.stub_llm import start_stub
    base_url, stub = start_stub()
    yield base_url, stub
    stub.stop()


def test_budget_stops_dispatching_and_resume_runs_the_rest(cli, tmp_path, priced_stub):
    base_url, stub = priced_stub
    f = write_suite(tmp_path, n=6, targets=f"""\
        - name: priced
          provider: openai
          base_url: {base_url}/v1
          model: gpt-4o-mini
          api_key: sk-budget-test-1234
    """)
    out = tmp_path / "r.jsonl"
    proc = run(str(f), "--target", "priced", "--workers", "1", "--budget-usd", "1e-9",
               "--out", str(out))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    ran = [r for r in records(out) if not r.get("budget_exceeded")]
    skipped = [r for r in records(out) if r.get("budget_exceeded")]
    assert len(ran) == 1 and ran[0]["usage"]["cost_usd"] > 1e-9  # one reply spent it
    assert len(skipped) == 5 and len(stub.completions()) == 1
    assert all(r["error"].startswith("not run: run budget exceeded") for r in skipped)
    assert "5 case(s) not run (continue with --resume" in proc.stdout
    assert "QUALITY GATE FAILED: run budget exceeded" in proc.stdout
    assert "ERRORS" not in proc.stdout  # not-run cases are summed up, not listed
    resumed = run(str(f), "--target", "priced", "--resume", str(out))
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    final = records(out)
    assert len(final) == 6 and not any(r.get("budget_exceeded") for r in final)
    assert sorted(r["eval_id"] for r in final) == [f"case-{i}" for i in range(6)]
    assert len(stub.completions()) == 6 and "total cases: 6" in resumed.stdout


@pytest.mark.parametrize("args,line", [
    (["--threshold", "2"], "error: --threshold: must be a number from 0 to 1, got 2.0"),
    (["--budget-usd", "-1"], "error: --budget-usd: must be a positive number of US dollars, "
                             "got -1.0"),
    (["--trials", "abc"], "error: --trials: must be a whole number, got 'abc'"),
    (["--resume", "--rerun-failed"], "error: --rerun-failed: cannot be combined with --resume"),
])
def test_option_errors_are_one_line_before_anything_runs(args, line, tmp_path):
    f = write_suite(tmp_path, n=1)
    (tmp_path / ".agentv" / "results").mkdir(parents=True)
    (tmp_path / ".agentv" / "results" / "eval_1.jsonl").write_text("")
    proc = run(str(f), "--out", str(tmp_path / "x.jsonl"), *args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.strip().startswith(line), proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert not (tmp_path / "x.jsonl").exists()
