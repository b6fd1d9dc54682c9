"""provider_batching: all cases in one call (JSONL in, JSONL keyed by id out), answers
mapped back, missing ids as per-case errors, per-case fallback when the batch fails or the
provider cannot batch."""
from __future__ import annotations

import asyncio
import logging
import shlex
import sys
from pathlib import Path

import pytest

from agentv.providers.agents.cli import CliProvider
from agentv.providers.base import ProviderError, ProviderTimeout, Request, Response, Target
from agentv.tasks.engine.case_runner import CaseRunner, RunOptions
from agentv.tasks.engine.runtime import build_runtimes
from agentv.tasks.plan.plan import EvalOptions, build_plan
from tests import TESTS

FAKES = TESTS / "fakes"
PY = shlex.quote(sys.executable)
BATCH = f"{PY} {shlex.quote(str(FAKES / 'batch_agent.py'))}"
AGENT = f"{PY} {shlex.quote(str(FAKES / 'agent.py'))}"


def cli(settings: dict) -> CliProvider:
    return CliProvider(Target("b", "cli", settings, where="targets.yaml:2", provider_batching=True))


def requests(*ids: str, trial: int = 0) -> list[Request]:
    return [Request(i, f"q {i}", trial=trial)
            for i in ids]


def test_batch_answers_are_mapped_back_by_id_and_missing_ids_fail_alone(tmp_path):
    count = tmp_path / "count"
    p = cli({"command_template": "unused {PROMPT}",
             "batch_command_template": f"{BATCH} --skip c2 --count {count} "
                                       "--output {OUTPUT_FILE}",
             "sandbox": "off"})  # --count writes beside the test, outside any scratch
    answers = asyncio.run(p.invoke_batch(requests("c1", "c2", "c3")))
    assert count.read_text() == "batch\n"  # one process for the whole batch
    assert [a.text if isinstance(a, Response) else str(a) for a in answers] == [
        "batched: q c1", "Batch output missing id 'c2'", "batched: q c3"]
    assert [e.name for e in answers[0].trace] == ["lookup"]  # from output_messages


def test_batch_on_stdout_with_trials_keyed_by_id_and_trial():
    p = cli({"command_template": f"{BATCH} --per-trial"})
    reqs = requests("c1") + requests("c1", trial=1)
    assert [a.text for a in asyncio.run(p.invoke_batch(reqs))] == ["batched: q c1 #0",
                                                                   "batched: q c1 #1"]


def test_a_failed_batch_raises_for_the_caller_to_fall_back():
    with pytest.raises(ProviderError, match="exited with code 1"):
        asyncio.run(cli({"command_template": f"{BATCH} --fail"}).invoke_batch(requests("a")))
    with pytest.raises(ProviderError, match="no JSONL answer lines"):
        asyncio.run(cli({"command_template": "echo not-jsonl"}).invoke_batch(requests("a")))
    with pytest.raises(ProviderTimeout):
        asyncio.run(cli({"command_template": "sleep 5", "batch_timeout_seconds": 0.3,
                         "timeout_seconds": 60}).invoke_batch(requests("a")))


def _suite(tmp_path: Path, target: str) -> EvalOptions:
    (tmp_path / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n" + target)
    judge = (f"[{sys.executable}, -c, 'import json,sys; json.load(sys.stdin); "
             "print(json.dumps({\"score\": 1}))']")
    cases = "".join(f"  - id: c{i}\n    input: question {i}\n" for i in range(3))
    suite = tmp_path / "s.yaml"
    suite.write_text("$schema: agentv-eval-v2\ntarget: b\nexecution:\n  evaluators:\n"
                     f"    - {{name: ok, type: code_judge, script: {judge}}}\n"
                     f"evalcases:\n{cases}")
    return EvalOptions(paths=[str(suite)], workers=3)


def _run(opts: EvalOptions) -> tuple[list[dict], CaseRunner]:
    plan = build_plan(opts)
    runner = CaseRunner(build_runtimes(plan), RunOptions())

    async def go():
        await runner.prefetch(plan.jobs)
        return [await runner.run(j) for j in plan.jobs]
    return asyncio.run(go()), runner


def test_case_runner_uses_one_batch_then_evaluates_each_case(tmp_path, caplog):
    count = tmp_path / "count"
    opts = _suite(tmp_path, f"  - name: b\n    provider: cli\n    provider_batching: true\n"
                            f"    command_template: {BATCH} --count {count}\n"
                            "    sandbox: off\n")  # --count writes outside any scratch
    with caplog.at_level(logging.INFO, logger="agentv"):
        records, _ = _run(opts)
    assert count.read_text() == "batch\n"
    assert [r["candidate_answer"] for r in records] == [f"batched: question {i}" for i in range(3)]
    assert all(r["score"] == 1.0 and r["attempt"] == 1 for r in records)
    assert records[0]["trace_summary"]["tool_calls_by_name"] == {"lookup": 1}
    assert "3 case(s) answered in one batch" in caplog.text


def test_failed_batch_falls_back_to_per_case_dispatch(tmp_path, caplog):
    opts = _suite(tmp_path, "  - name: b\n    provider: cli\n    provider_batching: true\n"
                            f"    batch_command_template: {BATCH} --fail\n"
                            f"    command_template: {AGENT} --prompt {{PROMPT}}\n")
    with caplog.at_level(logging.INFO, logger="agentv"):
        records, _ = _run(opts)
    assert [r["candidate_answer"] for r in records] == [f"question {i}" for i in range(3)]
    assert "failed (ProviderError: command exited with code 1" in caplog.text
    assert "falling back to per-case dispatch" in caplog.text


def test_provider_without_batching_dispatches_per_case(tmp_path, caplog):
    opts = _suite(tmp_path, "  - name: b\n    provider: mock\n    provider_batching: true\n"
                            "    response: fine\n")
    with caplog.at_level(logging.INFO, logger="agentv"):
        records, runner = _run(opts)
    assert runner.targets["b"].batch is None
    assert [r["candidate_answer"] for r in records] == ["fine"] * 3
    assert "provider 'mock' does not support provider_batching" in caplog.text


@pytest.mark.slow
def test_batching_targets_are_not_split_into_chunks(tmp_path, prefect_api):
    from agentv.tasks.plan.batching import batches_of
    from agentv.tasks.plan.expand import Job
    plan = build_plan(_suite(tmp_path, "  - name: b\n    provider: mock\n"))
    jobs = [Job(plan.jobs[0].case, "b", t) for t in range(25)]
    assert [len(b) for _, b in batches_of(jobs, 10)] == [10, 10, 5]
    assert [len(b) for _, b in batches_of(jobs, 10, frozenset({"b"}))] == [25]


def test_provider_batching_under_settings_is_honoured(tmp_path):
    """AgentV's own targets files write ``settings: {provider_batching: true}``."""
    count = tmp_path / "count"
    opts = _suite(tmp_path, "  - name: b\n    provider: cli\n    settings:\n"
                            "      provider_batching: true\n"
                            f"    command_template: {BATCH} --count {count}\n"
                            "    sandbox: off\n")  # --count writes outside any scratch
    records, runner = _run(opts)
    assert runner.targets["b"].batch is not None
    assert count.read_text() == "batch\n"
    assert [r["candidate_answer"] for r in records] == [f"batched: question {i}" for i in range(3)]
