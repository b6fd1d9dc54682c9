"""``code_judge`` / ``code-grader``: one class and one way to run the script for both AgentV
generations; the generation's protocol is what the script reads and how its output becomes the
result (v2's protocol with real scripts: test_judge_targets.py; AgentV 4.42.4's against the real
program: tests/compat/test_agentv4_differential.py)."""
from __future__ import annotations

import asyncio
import json
import sys
import textwrap
from pathlib import Path

import pytest

from agentv.evaluators.base import EvalContext, run_evaluator
from agentv.evaluators.code import AGENTV4, V2, CodeJudge
from agentv.evaluators.gated import Gated
from agentv.evaluators.registry import AGENTV4_EVALUATORS, EVALUATORS, build_evaluator
from agentv.providers.base import ConfigError
from agentv.tasks.load.agentv4.assertions import AssertionBuilder

PY = sys.executable


def ctx(**fields) -> EvalContext:
    return EvalContext(eval_id="c1", question="What is 2+2?", candidate_answer="4",
                       expected_outcome="Answers 4", **fields)


def script(folder: Path, body: str) -> str:
    path = folder / "grade.py"
    path.write_text(textwrap.dedent(body))
    return str(path)


def v4(folder: Path, config: dict, context: EvalContext | None = None):
    """Built as the AgentV 4.x loader builds a ``code-grader`` assertion."""
    gated = AssertionBuilder(str(folder / "s.eval.yaml"), folder, print).build(
        {"type": "code-grader", **config}, 1)
    assert isinstance(gated, Gated)
    inner = gated.inner
    return inner, asyncio.run(run_evaluator(inner, context or ctx()))


def test_both_spellings_are_one_class_with_the_generations_protocol(tmp_path):
    assert AGENTV4_EVALUATORS["code-grader"] == EVALUATORS["code_judge"]
    old = build_evaluator({"type": "code_judge", "script": f"{PY} -c pass"})
    new, _ = v4(tmp_path, {"command": f"{PY} -c pass"})
    assert type(old) is type(new) is CodeJudge
    assert old._protocol is V2 and new._protocol is AGENTV4
    assert old.script == f"{PY} -c pass" and new.script == [PY, "-c", "pass"]  # 4.x splits it
    assert (old.command_key, new.command_key) == ("script", "command")


def test_agentv4_assertions_and_a_missing_score(tmp_path):
    grade = script(tmp_path, """
        import json, sys
        case = json.load(sys.stdin)
        print(json.dumps({"assertions": [
            {"text": "says 4", "passed": case["output"] == "4", "evidence": "4"},
            {"text": "cites", "passed": False}, {"passed": True}], "details": {"n": 2}}))
    """)
    _, result = v4(tmp_path, {"command": [PY, grade]})
    assert result.score == 0.5 and result.details == {"n": 2}
    assert result.assertions == [{"text": "says 4", "passed": True, "evidence": "4"},
                                 {"text": "cites", "passed": False}]
    assert result.evaluator_provider_request == {"command": [PY, grade],
                                                 "cwd": str(tmp_path.resolve())}


@pytest.mark.parametrize("body, score, text", [
    ("print('fine')", 1.0, "fine"),
    ("import sys; sys.exit(2)", 0.0, "exit 2"),
    ("import sys; print('boom', file=sys.stderr); sys.exit(3)", 0.0,
     "Code evaluator failed: Code evaluator exited with code 3: boom"),
    ("import sys; print('{\"score\": 1}'); sys.exit(1)", 0.0,
     "Code evaluator failed: Code evaluator exited with code 1"),
])
def test_agentv4_exit_code_convention_and_failures(tmp_path, body, score, text):
    _, result = v4(tmp_path, {"command": [PY, script(tmp_path, body)]})
    assert result.score == score and result.assertions[0]["text"] == text
    assert result.error is None  # a grader failure, not the evaluator's error


def test_a_timeout_and_a_command_that_cannot_start_per_generation(tmp_path):
    slow = script(tmp_path, "import time; time.sleep(5)")
    _, new = v4(tmp_path, {"command": [PY, slow], "timeout_seconds": 0.3})
    assert new.score == 0 and new.misses == ["Code evaluator failed: timed out after 0.3s"]
    old = CodeJudge(script=[PY, slow], timeout_seconds=0.3)
    result = asyncio.run(run_evaluator(old, ctx()))
    assert result.error == "timed out after 0.3s"
    assert (result.evaluator_provider_request or {})["script"] == [PY, slow]
    missing = CodeJudge(script=["/nonexistent/grader"], base_dir=str(tmp_path))
    assert "nonexistent" in str(asyncio.run(run_evaluator(missing, ctx())).error)


def test_agentv4_payload_config_and_env(tmp_path):
    """4.42.4's snake_case payload; unknown keys (`env` too: no setting of 4.42.4's) and
    `config` reach the script as `config`; an agent's workspace is AGENTV_WORKSPACE_PATH."""
    grade = script(tmp_path, """
        import json, os, sys
        case = json.load(sys.stdin)
        print(json.dumps({"score": 1, "details": {
            "keys": sorted(case), "config": case["config"],
            "workspace": os.environ.get("AGENTV_WORKSPACE_PATH")}}))
    """)
    _, result = v4(tmp_path, {"command": [PY, grade], "needle": "x", "env": {"A": "1"},
                              "config": {"needle": "y"}}, ctx(workspace_path=str(tmp_path)))
    details = result.details or {}
    assert details["config"] == {"needle": "y", "env": {"A": "1"}}
    assert details["workspace"] == str(tmp_path)
    assert {"criteria", "expected_output", "output", "messages", "trace_summary",
            "token_usage", "file_changes", "workspace_path"} <= set(details["keys"])


def test_v2_runs_a_string_through_the_shell_and_reads_its_verdict(tmp_path):
    line = f"echo '{json.dumps({'score': 0.5, 'hits': ['h'], 'reasoning': 'r', 'n': 1})}' | cat"
    judge = build_evaluator({"type": "code_judge", "script": line, "level": 3},
                            base_dir=str(tmp_path))
    result = asyncio.run(run_evaluator(judge, ctx()))
    assert (result.score, result.hits, result.reasoning) == (0.5, ["h"], "r")
    assert result.details == {"n": 1} and result.assertions is None


def test_empty_command_is_refused():
    with pytest.raises(ConfigError, match="must not be empty"):
        build_evaluator({"type": "code_judge", "script": " "})
