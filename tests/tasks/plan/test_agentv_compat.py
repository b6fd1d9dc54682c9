"""AgentV's own example suites (v1.5.0 and v2.6.1, 20 eval files) run unchanged, from the
directory each README names, and write what AgentV writes.

Command targets, their mock agents and every code judge run for real (bun, uv, python);
LLM-target suites run with ``--dry-run``; an ``llm_judge`` of a command-target suite talks to
a loopback Azure stub through the suite's own ``${{ AZURE_OPENAI_* }}`` variables. Against
the recorded baselines: every key with the same JSON type, deterministic evaluators' scores,
hits and misses equal, and the provider request (the prompt) byte for byte.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.agentv_suites import (
    DETERMINISTIC,
    EXAMPLES,
    OPTIONAL,
    SUITES,
    Suite,
    deterministic_results,
    key_mismatches,
    prepare_tree,
    read_jsonl,
    suite_args,
)
from tests.conftest import TOOLS_BIN, real_tool, run_cli

pytestmark = [pytest.mark.slow,  # end-to-end (docs/development.md: the fast subset)
              pytest.mark.skipif(not EXAMPLES.is_dir(), reason="shared/agentv-examples absent")]
BY_ID = {s.id: s for s in SUITES}
BASELINED = [s.id for s in SUITES if s.baseline]
SAME_INPUTS = [i for i in BASELINED if "basic-jsonl" not in i]  # its cases differ in wording
SCORED = [s.id for s in SUITES if s.compare_scores]
# batch-cli's runner leaves aml-004-not-exist unanswered on purpose: an execution error AgentV
# records and still exits 0 (4.42.4 exits 0 when some, not all, cases errored); agentv fails
# such a run (exit 1) unless --no-fail-on-error, so these suites run with it
ERRORS_EXPECTED = ("batch-cli",)


class Runs:
    """Each suite runs once per test module, on first use."""

    def __init__(self, root: Path, env: dict[str, str], out: Path):
        self.root, self.env, self.out, self.done = root, env, out, {}

    def __call__(self, suite: Suite):
        for tool in suite.runtimes:
            real_tool(tool)
        if suite.id not in self.done:
            out = self.out / (suite.id.replace("/", "_").replace(":", "_") + ".jsonl")
            args = ["eval", suite.eval_file, "--out", str(out), *suite_args(suite, self.env)]
            if any(name in suite.id for name in ERRORS_EXPECTED):
                args.append("--no-fail-on-error")
            proc = run_cli(*args, *([] if suite.real else ["--dry-run"]),
                           cwd=self.root / suite.version / suite.run_dir, env=self.env,
                           timeout=300)
            self.done[suite.id] = (proc, read_jsonl(out) if out.exists() else [])
        return self.done[suite.id]

    def baseline(self, suite: Suite) -> dict[str, dict]:
        return {b["eval_id"]: b for b in read_jsonl(self.root / suite.version / suite.baseline)}


@pytest.fixture(scope="module")
def runs(tmp_path_factory, prefect_api):
    from tests.stub_llm import start_stub
    root = tmp_path_factory.mktemp("agentv-examples") / "tree"
    extra = prepare_tree(root, installed("bun"))
    base_url, stub = start_stub()
    env = {**extra, "PATH": f"{TOOLS_BIN}{os.pathsep}{os.environ['PATH']}",
           "AZURE_OPENAI_ENDPOINT": base_url, "AZURE_OPENAI_API_KEY": "stub-key",
           "AZURE_DEPLOYMENT_NAME": "gpt-stub", "AZURE_OPENAI_API_VERSION": "2024-06-01"}
    out = root / "results"
    out.mkdir()
    yield Runs(root, env, out)
    stub.stop()


@pytest.mark.parametrize("suite_id", [s.id for s in SUITES])
def test_suite_runs_unchanged_from_its_readme_directory(runs, suite_id):
    suite = BY_ID[suite_id]
    proc, records = runs(suite)
    assert proc.returncode == 0, proc.stderr[-2000:]
    from agentv.tasks.load.files import load_suite
    eval_file = runs.root / suite.version / suite.run_dir / suite.eval_file
    assert sorted(r["eval_id"] for r in records) == sorted(c.id for c in
                                                          load_suite(eval_file).cases)
    expected_errors = {"aml-004-not-exist"}  # the batch runner's answer lacks it, on purpose
    assert [r["eval_id"] for r in records if r["error"]] == \
        [r["eval_id"] for r in records if r["eval_id"] in expected_errors]
    failed = [(r["eval_id"], e["name"], e["error"]) for r in records
              for e in r["evaluator_results"] if e.get("error")]
    assert not failed
    assert all("trace_summary" in r and "duration_ms" in r["trace_summary"]
               for r in records if not r["error"])


@pytest.mark.parametrize("suite_id", BASELINED)
def test_every_baseline_key_is_written_with_its_type(runs, suite_id):
    suite = BY_ID[suite_id]
    _, records = runs(suite)
    baseline = runs.baseline(suite)
    by_type = {r["type"]: r for b in baseline.values() for r in b.get("evaluator_results", [])}
    assert records
    for record in records:
        if record["eval_id"] in baseline:
            expected = baseline[record["eval_id"]]
            assert key_mismatches(expected, record) == [], record["eval_id"]
            continue
        # a case added since the baseline was recorded: its first successful case's keys
        # (the request's shape depends on the case's turns) and each result against one
        # of its type
        expected = next(b for b in baseline.values() if not b.get("error"))
        top = {k: ({} if k == "lm_provider_request" else v) for k, v in expected.items()
               if k != "evaluator_results"}
        assert key_mismatches(top, record, optional=OPTIONAL) == [], record["eval_id"]
        for result in record["evaluator_results"]:
            if result["type"] in by_type:
                shallow = {k: v for k, v in by_type[result["type"]].items()
                           if k not in ("evaluator_results", "evaluator_provider_request")}
                assert key_mismatches(shallow, result) == [], (record["eval_id"], result["name"])


@pytest.mark.parametrize("suite_id", SAME_INPUTS)
def test_provider_request_equals_agentvs_byte_for_byte(runs, suite_id):
    """What was sent — the cli {PROMPT}, an LLM's chat — is the baseline's request."""
    suite = BY_ID[suite_id]
    _, records = runs(suite)
    baseline = runs.baseline(suite)
    compared = 0
    for record in records:
        expected = baseline.get(record["eval_id"], {}).get("lm_provider_request")
        if expected is not None and not record["error"]:
            assert record["lm_provider_request"] == expected, record["eval_id"]
            compared += 1
    assert compared or suite_id.endswith("execution-metrics/evals/dataset.yaml")


@pytest.mark.parametrize("suite_id", SAME_INPUTS)
def test_judge_prompt_equals_agentvs_up_to_the_answer(runs, suite_id):
    """The default llm_judge's prompt is AgentV's (the candidate answers differ)."""
    suite = BY_ID[suite_id]
    _, records = runs(suite)
    baseline = runs.baseline(suite)
    cut = "[[ ## candidate_answer ## ]]"
    for record in records:
        expected = (baseline.get(record["eval_id"]) or {}).get("evaluator_provider_request")
        if not expected or "user_prompt" not in expected:
            continue
        ours = record["evaluator_provider_request"]
        assert ours["user_prompt"].split(cut)[0] == expected["user_prompt"].split(cut)[0]
        assert ours["system_prompt"] == expected["system_prompt"]


@pytest.mark.parametrize("suite_id", SCORED)
def test_deterministic_scores_hits_and_misses_equal_the_baseline(runs, suite_id):
    suite = BY_ID[suite_id]
    _, records = runs(suite)
    baseline = runs.baseline(suite)
    compared = 0
    for record in records:
        expected = baseline.get(record["eval_id"])
        if expected is None:
            continue
        ours = deterministic_results(record)
        for name, result in deterministic_results(expected).items():
            assert ours[name]["score"] == pytest.approx(result["score"], abs=1e-6)
            assert (ours[name]["hits"], ours[name]["misses"]) == \
                (result["hits"], result["misses"]), (record["eval_id"], name)
            compared += 1
        if all(r["type"] in DETERMINISTIC for r in expected.get("evaluator_results", [])):
            assert record["score"] == pytest.approx(expected["score"], abs=1e-6)
            assert (record["hits"], record["misses"]) == (expected["hits"], expected["misses"])
    assert compared or suite_id.endswith("execution-metrics/evals/dataset.yaml")


def test_execution_metrics_score_like_agentv(runs):
    """A target that reports usage, cost and duration but calls no tool made 0 tool calls:
    AgentV scores these two cases 1.0 / 1.0."""
    _, records = runs(BY_ID["v2.6.1:execution-metrics/evals/dataset.yaml"])
    scores = {r["eval_id"]: r["score"] for r in records}
    assert (scores["simple-thresholds-pass"], scores["comprehensive-thresholds"]) == (1.0, 1.0)
    hybrid = next(r for r in records if r["eval_id"] == "hybrid-evaluation")
    summary = hybrid["trace_summary"]
    assert summary["event_count"] == 0 and summary["duration_ms"] == 890
    assert summary["token_usage"]["input"] == 85 and summary["cost_usd"] == 0.0008


def test_code_judge_results_carry_agentvs_request_and_flat_details(runs):
    suite = BY_ID["v2.6.1:document-extraction/evals/dataset-confusion-metrics.yaml"]
    _, records = runs(suite)
    judge = records[0]["evaluator_results"][0]
    assert judge["type"] == "code_judge"
    assert judge["evaluator_provider_request"] == {
        "script": ["bun", "run", "../judges/header_confusion_metrics.ts"],
        "cwd": str(runs.root / suite.version / "examples/features/document-extraction/evals")}
    assert "metrics" in judge["details"] and "details" not in judge["details"]


def test_agentvs_aggregate_metrics_reads_our_results(runs):
    """The doc-extraction README's own aggregation script finds the judges' details."""
    import subprocess
    suite = BY_ID["v2.6.1:document-extraction/evals/dataset-confusion-metrics.yaml"]
    runs(suite)
    results = runs.out / "v2.6.1_document-extraction_evals_dataset-confusion-metrics.yaml.jsonl"
    script = "examples/features/document-extraction/scripts/aggregate_metrics.ts"
    proc = subprocess.run([real_tool("bun"), "run", script, str(results)],
                          cwd=runs.root / suite.version, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Processed 5 evaluation results" in proc.stdout
    assert "No metrics found" not in proc.stdout and "Micro-F1" in proc.stdout
    assert any(line.startswith("currency ") for line in proc.stdout.splitlines())


ECHO_TARGETS = """\
targets:
  - name: {name}
    provider: cli
    command_template: {python} {script} {{PROMPT}} {{OUTPUT_FILE}}
"""
ECHO = "import sys\nopen(sys.argv[2], 'w').write(sys.argv[1])\n"


@pytest.mark.parametrize("suite_id,target", [
    ("v2.6.1:local-cli/evals/dataset.yaml", "local_cli"),
    ("v2.6.1:tool-trajectory-simple/evals/dataset.yaml", "mock_agent"),
    ("v2.6.1:document-extraction/evals/dataset-field-accuracy.yaml", "mock_extractor"),
])
def test_cli_prompt_received_is_agentvs_question(runs, tmp_path, suite_id, target):
    """The {PROMPT} a command receives (echoed back as its answer) is byte for byte the
    question AgentV recorded for the case."""
    import sys
    suite = BY_ID[suite_id]
    script = tmp_path / "echo_prompt.py"
    script.write_text(ECHO)
    targets = tmp_path / "targets.yaml"
    targets.write_text(ECHO_TARGETS.format(name=target, python=sys.executable, script=script))
    out = tmp_path / "echo.jsonl"
    # the echo script lies outside the suite's root: the sandbox shows it once allowed
    proc = run_cli("eval", suite.eval_file, "--out", str(out), "--targets", str(targets),
                   "--target", target, "--allow-path", str(tmp_path),
                   cwd=runs.root / suite.version / suite.run_dir,
                   env=runs.env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    baseline = runs.baseline(suite)
    echoed = {r["eval_id"]: r["candidate_answer"] for r in read_jsonl(out)}
    compared = [i for i in echoed if i in baseline]
    assert compared
    for eval_id in compared:
        assert echoed[eval_id] == baseline[eval_id]["lm_provider_request"]["question"]


def test_error_record_has_agentvs_shape(runs):
    _, records = runs(BY_ID["v2.6.1:batch-cli/evals/dataset.yaml"])
    missing = next(r for r in records if r["eval_id"] == "aml-004-not-exist")
    message = "Batch output missing id 'aml-004-not-exist'"
    assert missing["error"] == message and missing["score"] == 0 and missing["hits"] == []
    assert missing["misses"] == [f"Provider error: {message}"]
    assert missing["lm_provider_request"]["error"] == message


def test_unused_exotic_targets_only_warn(runs):
    proc, _ = runs(BY_ID["v2.6.1:basic/evals/dataset.yaml"])
    # pi-coding-agent is a provider now; claude-code (unused here) is not: neither stops the run
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not [line for line in proc.stderr.splitlines() if line.startswith("error:")]


def installed(name: str) -> str | None:
    """A real program's path, or None (suites needing it then skip, or fail under CI)."""
    local = TOOLS_BIN / name
    return str(local) if local.exists() else shutil.which(name)
