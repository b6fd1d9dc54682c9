"""AgentV's own example suites (shared/agentv-examples) run unchanged through the case runner
on mock targets, with stand-in scripts of ours where a suite names a helper program.

Each suite folder is copied to a temp dir; fake ``uv`` / ``node`` / ``bun`` executables run
our Python stand-ins (``x.js`` / ``x.ts`` → ``x.py``). Every configured evaluator must be
applied (no skips, no evaluator errors); trajectory and field-accuracy scores must match
AgentV's recorded baselines.
"""
from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

from agentv.evaluators.llm_judge import LlmJudge
from agentv.evaluators.rubric import RubricEvaluator, rubric_evaluator_for
from agentv.evaluators.rubric_items import items_from
from agentv.providers.base import Target
from agentv.providers.llm.retry import RetryingProvider, RetryPolicy
from agentv.providers.mock import MockProvider
from agentv.tasks.engine.case_runner import CaseRunner, RunOptions, TargetRuntime
from agentv.tasks.load.files import load_suite
from agentv.tasks.plan.expand import Job, message_text
from tests.conftest import SHARED
from tests.stand_ins import STAND_INS, agent_trace, metrics_trace

EXAMPLES = SHARED / "agentv-examples"
pytestmark = pytest.mark.skipif(not EXAMPLES.is_dir(), reason="shared/agentv-examples absent")
V2, V1 = EXAMPLES / "v2.6.1/examples/features", EXAMPLES / "v1.5.0/examples/features/evals"

SUITES = {  # id: (suite folder, eval file inside it, answer kind)
    "rubric": (V2 / "rubric", "evals/dataset.yaml", "reference"),
    "composite": (V2 / "composite", "evals/dataset.yaml", "reference"),
    "weighted": (V2 / "weighted-evaluators", "evals/dataset.yaml", "reference"),
    "trajectory": (V2 / "tool-trajectory-simple", "evals/dataset.yaml", "agent"),
    "fields": (V2 / "document-extraction", "evals/dataset-field-accuracy.yaml", "file"),
    "latency": (V2 / "latency-assertions", "evals/dataset.yaml", "agent"),
    "metrics": (V2 / "execution-metrics", "evals/dataset.yaml", "metrics"),
    "v1-rubric": (V1 / "rubric", "rubric-examples.yaml", "reference"),
    "v1-composite": (V1 / "composite", "composite-example.yaml", "reference"),
    "v1-weighted": (V1 / "weighted-evaluators", "weighted-evaluators-example.yaml", "reference"),
    "v1-trajectory": (V1 / "tool-trajectory", "tool-trajectory-demo.yaml", "agent"),
}


@pytest.fixture
def fake_runtimes(tmp_path, monkeypatch):
    """``uv``/``node``/``bun`` on PATH that run our Python stand-ins instead."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = (f"#!{sys.executable}\nimport os, sys\nargs = sys.argv[1:]\n"
            "args = args[1:] if args and args[0] == 'run' else args\n"
            f"args = [{sys.executable!r} if a == 'python' else a for a in args]\n"
            "args = [a.rsplit('.', 1)[0] + '.py' if a.endswith(('.js', '.ts')) else a "
            "for a in args]\n"
            f"if args[0] != {sys.executable!r}: args.insert(0, {sys.executable!r})\n"
            "os.execv(args[0], args)\n")
    for name in ("uv", "node", "bun"):
        path = bin_dir / name
        path.write_text(shim)
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return tmp_path


def copy_suite(folder: Path, dest: Path) -> Path:
    target = dest / folder.name
    shutil.copytree(folder, target)
    (target / ".git").mkdir()  # a checkout: its prompts/ and graders/ are inside the suite's root
    for relative, body in STAND_INS.items():
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    return target


def judge_reply(case) -> dict:
    ids = [item.id for item in items_from(case.rubrics)] if case.rubrics else []
    return {"score": 0.9, "hits": ["covers the key points"], "misses": [], "reasoning": "good",
            "checks": [{"id": i, "satisfied": True, "score": 9, "reasoning": "met"} for i in ids],
            "overall_reasoning": "all criteria met"}


def target_settings(case, kind: str) -> dict:
    prompt = "\n".join(message_text(m) for m in case.input_messages)
    if kind == "reference":
        return {"response": "\n".join(message_text(m) for m in case.expected_messages) or "ok"}
    if kind == "file":
        fixture = next(s.text for m in case.input_messages for s in m.segments if s.kind == "file")
        return {"response": fixture}
    if kind == "metrics":
        return {"response": "Done.", "trace": metrics_trace(prompt),
                "usage": {"input_tokens": 450, "output_tokens": 380, "cost_usd": 0.0042}}
    return {"response": "Done.", "trace": agent_trace(prompt)}


def with_rubric_evaluator(case) -> list:
    """AgentV's rule for case-level ``rubrics`` (asked of the loader; done here until it
    is): the rubric evaluator replaces the default llm_judge and joins explicit ones."""
    evaluators = list(case.evaluators)
    if not case.rubrics or any(isinstance(e, RubricEvaluator) for e in evaluators):
        return evaluators
    explicit = [e for e in evaluators if not (isinstance(e, LlmJudge) and e.name == "llm_judge"
                                              and e.prompt is None)]
    return [rubric_evaluator_for(case.rubrics, case.base_dir, case.where), *explicit]


def run_case(case, kind: str) -> dict:
    case.evaluators = with_rubric_evaluator(case)
    no_retry = RetryPolicy(max_retries=0)
    agent = Target(name="mock_agent", provider="mock", settings=target_settings(case, kind))
    judge = Target(name="judge", provider="mock", settings={"judge_response": judge_reply(case)})
    runtime = TargetRuntime("mock_agent", RetryingProvider(MockProvider(agent), no_retry), False,
                            RetryingProvider(MockProvider(judge), no_retry))
    runner = CaseRunner({"mock_agent": runtime}, RunOptions())
    return asyncio.run(runner.run(Job(case, "mock_agent")))


def flatten(results: list[dict]) -> list[dict]:
    return [r for res in results for r in [res, *flatten(res.get("evaluator_results", []))]]


def baseline_scores(folder: Path) -> dict[tuple[str, str], float]:
    scores = {}
    for path in folder.glob("evals/*.baseline.jsonl"):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            for r in record.get("evaluator_results", []):
                scores[(record["eval_id"], r["name"])] = r["score"]
    return scores


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_agentv_suite_runs_with_every_evaluator_applied(suite, fake_runtimes):
    folder, eval_file, kind = SUITES[suite]
    copied = copy_suite(folder, fake_runtimes)
    loaded = load_suite(copied / eval_file)
    expected_kinds = set()
    for case in loaded.cases:
        record = run_case(case, kind)
        assert record["error"] is None, record["error"]
        top = record["evaluator_results"]
        assert [r["name"] for r in top] == [e.name for e in case.evaluators]
        for result in flatten(top):
            assert "error" not in result, (case.id, result)
            expected_kinds.add(result["type"])
        assert 0.0 <= record["score"] <= 1.0
    assert expected_kinds  # something ran


@pytest.mark.parametrize("suite", ["trajectory", "fields"])
def test_scores_match_agentv_baselines(suite, fake_runtimes):
    folder, eval_file, kind = SUITES[suite]
    baseline = baseline_scores(folder)
    loaded = load_suite(copy_suite(folder, fake_runtimes) / eval_file)
    compared = 0
    for case in loaded.cases:
        record = run_case(case, kind)
        for result in record["evaluator_results"]:
            key = (case.id, result["name"])
            if key in baseline:
                assert result["score"] == pytest.approx(baseline[key], abs=1e-6), key
                compared += 1
    assert compared >= 5
