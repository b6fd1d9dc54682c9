"""End to end: the real `agentv eval` in a subprocess, a real Prefect server, real flow runs."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLE, ROOT

EXAMPLE_EVAL = EXAMPLE / "evals" / "example.test.yaml"


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def suite(tmp_path: Path, n: int = 6, target_settings: str = "", cases: str | None = None) -> Path:
    base = ("$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: mock\n"
            "    response: the answer is 42\n")
    extra = textwrap.indent(textwrap.dedent(target_settings), "  ")
    (tmp_path / "targets.yaml").write_text(base + extra)
    body = cases or "".join(
        f"  - id: case-{i}\n    input: question {i}\n    execution:\n      evaluators:\n"
        f"        - {{name: py, type: code_judge, script: [python3, score.py]}}\n"
        for i in range(n))
    (tmp_path / "score.py").write_text(
        "import json,sys\nc=json.load(sys.stdin)\nn=int(c['eval_id'].split('-')[1])\n"
        "print(json.dumps({'score': (n % 5) / 4, 'hits': [], 'misses': [], 'reasoning': 'n'}))\n")
    f = tmp_path / "s.yaml"
    f.write_text("$schema: agentv-eval-v2\nevalcases:\n" + body)
    return f


@pytest.mark.slow
def test_example_dry_run_records_summary_and_flow_run(cli, tmp_path):
    out = tmp_path / "r.jsonl"
    proc = cli("eval", str(EXAMPLE_EVAL), "--dry-run", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    recs = records(out)
    assert sorted(r["eval_id"] for r in recs) == ["multiturn-debugging", "plain-greeting",
                                                  "review-javascript-with-guidelines"]
    for key in ("timestamp", "eval_id", "dataset", "target", "score", "hits", "misses",
                "candidate_answer", "reasoning", "lm_provider_request", "evaluator_results",
                "error", "attempt", "latency_ms"):
        assert all(key in r for r in recs), key
    assert "SUMMARY" in proc.stdout and "total cases: 3" in proc.stdout
    assert "histogram" in proc.stdout and "wall time" in proc.stdout
    import re
    flow_run_id = re.search(r"flow-run/([0-9a-f-]{36})", proc.stdout).group(1)
    import asyncio

    from prefect.client.orchestration import get_client

    async def read():
        async with get_client() as client:
            run = await client.read_flow_run(flow_run_id)
            tasks = await client.read_task_runs()
            return run, [t for t in tasks if t.flow_run_id == run.id]
    import time
    deadline = time.monotonic() + 20  # the server records task runs asynchronously
    while True:
        run, tasks = asyncio.run(read())
        done = [t for t in tasks if t.state and t.state.is_completed()]
        if len(done) >= 4 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert run.state.is_completed(), [(t.name, t.state) for t in tasks]
    for stage in ("load-and-expand", "preflight-targets", "run-cases: example.test.yaml",
                  "summarize"):
        assert any(t.name.startswith(stage) and t.state.is_completed() for t in tasks), stage


@pytest.mark.slow
def test_module_entry_equals_agentv_eval(cli, tmp_path):
    f = suite(tmp_path, n=3)
    out = tmp_path / "r.jsonl"
    proc = cli(str(f), "--out", str(out), module="flows.eval")
    assert proc.returncode == 0, proc.stderr
    assert len(records(out)) == 3


@pytest.mark.slow
def test_workers_do_not_change_the_statistics(cli, tmp_path):
    f = suite(tmp_path, n=12, target_settings="""\
        - name: slow
          provider: mock
          delayMinMs: 1
          delayMaxMs: 30
    """)
    outs = []
    for w in ("1", "8"):
        out = tmp_path / f"w{w}.jsonl"
        proc = cli("eval", str(f), "--target", "slow", "--workers", w, "--out", str(out))
        assert proc.returncode == 0, proc.stderr
        outs.append(proc.stdout.split("SUMMARY")[1].split("wall time")[0])
        assert len(records(out)) == 12
    assert outs[0] == outs[1]
    assert "mean: 0.438" in outs[0]


@pytest.mark.slow
def test_failed_case_is_recorded_and_others_go_on(cli, tmp_path):
    f = suite(tmp_path, cases=textwrap.dedent("""\
          - id: ok-1
            input: fine
          - id: broken
            input: boom
            execution: {target: failing}
          - id: flaky
            input: retry me
            execution: {target: flaky}
        """), target_settings="""\
        - name: failing
          provider: mock
          error: upstream rejected the request
        - name: flaky
          provider: mock
          fail_attempts: 2
          retry_initial_delay_ms: 5
    """)
    out = tmp_path / "r.jsonl"
    proc = cli("eval", str(f), "--out", str(out), "--workers", "3")
    assert proc.returncode == 1, proc.stderr  # a case errored: the run fails
    by_id = {r["eval_id"]: r for r in records(out)}
    assert by_id["broken"]["score"] == 0 and "upstream rejected" in by_id["broken"]["error"]
    assert by_id["broken"]["attempt"] == 1
    assert by_id["flaky"]["error"] is None and by_id["flaky"]["attempt"] == 3
    assert by_id["ok-1"]["error"] is None
    assert by_id["broken"]["misses"] == ["Provider error: upstream rejected the request"]
    assert "ERRORS" in proc.stdout and "broken [failing]: upstream rejected" in proc.stdout


@pytest.mark.slow
def test_yaml_output_eval_id_filter_and_prompt_dumps(cli, tmp_path):
    out = tmp_path / "r.yaml"
    dumps = tmp_path / "prompts"
    proc = cli("eval", str(EXAMPLE_EVAL), "--output-format", "yaml", "--out", str(out),
               "--eval-id", "review-*", "--dump-prompts", str(dumps))
    assert proc.returncode == 0, proc.stderr
    docs = [d for d in yaml.safe_load_all(out.read_text()) if d]
    assert [d["eval_id"] for d in docs] == ["review-javascript-with-guidelines"]
    assert "candidate_answer: |" in out.read_text()  # multi-line strings as literal blocks
    (dump_path,) = dumps.iterdir()
    assert docs[0]["dump_files"]["prompt"] == str(dump_path)
    assert dump_path.name.startswith("review-javascript-with-guidelines__")
    dump = json.loads(dump_path.read_text())
    assert set(dump) == {"eval_id", "question", "guidelines", "guideline_paths", "chat_prompt"}
    # the example's target is a cli agent: it gets the attachment's path, the guidelines' text
    assert '<file: path="./snippets/cart.js">' in dump["question"]
    assert "House rules" in dump["guidelines"]
    assert [Path(p).name for p in dump["guideline_paths"]] == ["javascript.instructions.md",
                                                               "python.instructions.md"]


@pytest.mark.parametrize("args,needle", [
    (["--workers", "0"], "--workers: must be from 1 to 50"),
    (["--workers", "abc"], "--workers: must be a whole number"),
    (["--output-format", "xml"], "expected one of: jsonl, yaml"),
    (["--target", "nope"], "unknown target 'nope' (known: default, judge, azure_base; "
     f"define it in {EXAMPLE / '.agentv' / 'targets.yaml'} or name one of these)"),
])
def test_bad_flags_exit_2_with_one_line(args, needle, tmp_path):
    from tests.conftest import run_cli
    proc = run_cli("eval", str(EXAMPLE_EVAL), "--out", str(tmp_path / "x.jsonl"), *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert needle in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "x.jsonl").exists()


def test_bad_file_exits_2_naming_file_and_line(tmp_path):
    from tests.conftest import run_cli
    bad = tmp_path / "bad.yaml"
    bad.write_text("$schema: agentv-eval-v2\nevalcases:\n  - id: a\n    input:\n"
                   "      - role: wizard\n        content: hi\n")
    proc = run_cli("eval", str(bad), "--dry-run")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (f"error: {bad}:5: role: unknown role 'wizard' "
                                   "(expected one of system, user, assistant, tool)")


def test_unset_variable_of_used_target(tmp_path):
    from tests.conftest import run_cli
    (tmp_path / "targets.yaml").write_text(
        "targets:\n  - name: default\n    provider: mock\n    api_key: ${{ AGENTV_NOPE_KEY }}\n")
    (tmp_path / "e.yaml").write_text("evalcases:\n  - {id: a, input: hi}\n")
    proc = run_cli("eval", str(tmp_path / "e.yaml"), cwd=tmp_path)
    assert proc.returncode == 2
    assert f"{tmp_path / 'targets.yaml'}:4: api_key: environment variable AGENTV_NOPE_KEY" \
        in proc.stderr
    assert "no $schema" in proc.stderr  # lenient eval: warned, not rejected


def test_help_and_validate_do_not_import_prefect_or_litellm():
    import subprocess
    import sys
    code = ("import sys; from flows.cli.main import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit: pass\n"
            "bad = [m for m in ('prefect', 'litellm', 'pandas') if m in sys.modules]\n"
            "print('IMPORTED', bad)")
    for args in (["--help"], ["validate", str(EXAMPLE)]):
        proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                              text=True, cwd=ROOT)
        assert "IMPORTED []" in proc.stdout, proc.stdout + proc.stderr
