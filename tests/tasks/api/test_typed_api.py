"""Seed 002's call shapes: its "Testing Evaluators" examples as written (in agentv's words),
session-aware detection by required parameters, positional ``tool_call_count``,
``slice_contains`` on custom slices a callable target returns, ``SessionView.session_id``,
judges built from targets.yaml by name, and the ``agentv worker`` command's bad input."""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime  # noqa: F401 - the seed's examples import them
from unittest.mock import Mock

import pytest

from agentv import (
    Dataset,
    EvalLoop,
    PromptExecuted,
    Sample,
    Score,
    SessionView,
    ToolInvoked,
    TracedOutput,
    all_of,
    all_tools_succeeded,
    any_of,
    categorical_judge,
    collect_results,
    contains,
    exact_match,
    is_session_aware,
    llm_judge,
    request_mailbox,
    result_mailbox,
    slice_contains,
    submit_dataset,
    token_usage_under,
    tool_call_count,
    tool_called,
)
from agentv.providers.base import ConfigError
from tests.conftest import run_cli
from tests.stub_llm import start_stub


# --- seed 002, "Testing Evaluators": evaluators are pure functions, tested directly ---
def test_exact_match_pass():
    score = exact_match("hello", "hello")
    assert score.passed is True
    assert score.value == 1.0


def test_exact_match_fail():
    score = exact_match("hello", "world")
    assert score.passed is False
    assert score.value == 0.0


def test_contains_pass():
    score = contains("The answer is 42.", "42")
    assert score.passed is True


def test_all_of_requires_all():
    evaluator = all_of(exact_match, contains)
    score = evaluator("hello", "hello")
    assert score.passed is True

    score = evaluator("hello world", "hello")
    assert score.passed is False  # exact_match fails


def test_any_of_requires_one():
    evaluator = any_of(exact_match, contains)
    score = evaluator("hello world", "hello")
    assert score.passed is True  # contains passes


# --- seed 002, "Testing Session Evaluators": a mock session with the slices ---
def make_mock_session(tool_invocations: list[ToolInvoked]) -> Mock:
    """Create a mock session with ToolInvoked slice."""
    session = Mock()
    slice_view = Mock()
    slice_view.all.return_value = tuple(tool_invocations)
    session.__getitem__ = Mock(return_value=slice_view)
    return session


def test_tool_called_pass():
    invocation = ToolInvoked(name="search", arguments={"query": "test"},
                             result={"success": True})
    session = make_mock_session([invocation])

    evaluator = tool_called("search")
    score = evaluator(None, None, session)

    assert score.passed is True
    assert "called 1 time" in score.reason


def test_tool_called_fail():
    session = make_mock_session([])  # No invocations

    evaluator = tool_called("search")
    score = evaluator(None, None, session)

    assert score.passed is False
    assert "called 0 time" in score.reason


def test_all_tools_succeeded_with_failure():
    invocations = [ToolInvoked(name="search", arguments={},
                               result={"success": False, "error": "not found"})]
    session = make_mock_session(invocations)

    evaluator = all_tools_succeeded()
    score = evaluator(None, None, session)

    assert score.passed is False
    assert "search" in score.reason


# --- call shapes ---
@dataclass(frozen=True)
class PlanStep:
    name: str
    status: str


def close(output, expected, tol=0.1):  # an optional third parameter: a plain evaluator
    return Score(1.0 if abs(output - expected) <= tol else 0.0, abs(output - expected) <= tol)


def test_session_awareness_is_decided_by_required_parameters():
    assert not is_session_aware(close)
    assert is_session_aware(lambda output, expected, session: Score(1, True))
    assert is_session_aware(tool_called("x")) and is_session_aware(all_of(exact_match))
    assert all_of(close, exact_match)(1.05, 1.0, None).value == 0.5


def test_slices_of_a_session_view():
    view = SessionView(events=(ToolInvoked(name="search"), PromptExecuted(
        model="m", input_tokens=3, output_tokens=4)), slices=(PlanStep("a", "done"),))
    assert [c.name for c in view[ToolInvoked].all()] == ["search"]
    assert view[PromptExecuted].latest().input_tokens == 3
    assert view[PlanStep].where(lambda s: s.status == "done") == (PlanStep("a", "done"),)
    assert view["tool_call"][0].name == "search"  # by trace type, as before
    assert token_usage_under(7)(None, None, view).passed
    assert tool_call_count("search", 1, 2)(None, None, view).passed
    assert not tool_call_count("search", 2)(None, None, view).passed
    assert slice_contains(PlanStep, lambda s: s.status == "done", 1)(None, None, view).passed
    assert not slice_contains(PlanStep, lambda s: s.status == "failed")(None, None, view).passed


def planner(question: str) -> TracedOutput:
    steps = [PlanStep("look up", "completed"), PlanStep("answer", "completed")]
    return TracedOutput(question.upper(), trace=[{"tool": "search", "input": {"q": question}}],
                        usage=None, slices=steps)


def run_in_memory(target, evaluator, samples, **loop_options):
    data = Dataset(tuple(samples))
    name = f"typed-{id(data)}"
    requests = request_mailbox(f"memory://{name}-req", str, str)
    results = result_mailbox(f"memory://{name}-res")
    submit_dataset(data, requests)
    EvalLoop(loop=target, evaluator=evaluator, requests=requests, results=results,
             wait_time_seconds=0.1, **loop_options).run(until_empty=True)
    return collect_results(results, len(data), timeout_seconds=5)


def test_a_callable_target_returns_a_trace_and_custom_slices_for_session_evaluators():
    seen_ids = []

    def session_id_of(output, expected, session):
        seen_ids.append(session.session_id)
        return Score(1.0, True)

    evaluator = all_of(exact_match, tool_call_count("search", 1, 1),
                       slice_contains(PlanStep, lambda s: s.status == "completed", 2),
                       session_id_of, close_enough_length)
    report = run_in_memory(planner, evaluator, [Sample("1", "paris", "PARIS"),
                                                 Sample("2", "rome", "ROME")])
    assert report.total == 2 and report.pass_rate == 1.0, report.results
    assert len(set(seen_ids)) == 2 and all(len(i) == 36 for i in seen_ids)


def close_enough_length(output, expected, tol=0):  # plain, despite its third parameter
    return Score(1.0, abs(len(output) - len(expected)) <= tol)


# --- judges by target name ---
@pytest.fixture
def judge_targets(tmp_path, monkeypatch):
    base_url, stub = start_stub(reply=json.dumps({"rating": "good", "reason": "clear"}))
    monkeypatch.setenv("JUDGE_KEY", "sk-judge-secret-1234")
    path = tmp_path / "targets.yaml"
    path.write_text("$schema: agentv-targets-v2\ntargets:\n  - name: judge\n"
                    f"    provider: openai\n    base_url: {base_url}/v1\n    model: judge-m\n"
                    "    api_key: ${{ JUDGE_KEY }}\n")
    yield str(path), stub
    stub.stop()


def test_llm_judge_and_categorical_judge_build_their_provider_from_targets_yaml(judge_targets):
    targets, stub = judge_targets
    helpful = llm_judge("judge", "Response is helpful", targets=targets)
    assert helpful("Paris", "Paris") == Score(0.75, True, "good: clear")
    judge = categorical_judge(target="judge", criterion="No hallucinations", targets=targets)
    report = run_in_memory(str.upper, all_of(contains, judge), [Sample("1", "x", "X")])
    assert report.results[0].score.passed and report.results[0].score.value == 0.875
    prompts = [r.body["messages"][-1]["content"] for r in stub.completions()]
    assert any("Response is helpful" in p for p in prompts)
    assert any("No hallucinations" in p for p in prompts)
    assert all(r.headers.get("authorization") == "Bearer sk-judge-secret-1234"
               for r in stub.completions())
    with pytest.raises(ConfigError, match="unknown target 'nope'"):
        llm_judge("nope", "anything", targets=targets)


# --- agentv worker: bad input is one line, exit 2 ---
@pytest.mark.slow
def test_worker_bad_program_and_memory_mailbox_are_one_line_errors(tmp_path):
    res = run_cli("worker", "--requests", "redis://127.0.0.1:1/0#r", "--results",
                  "redis://127.0.0.1:1/0#s", "--program", "no_such_module:program", cwd=tmp_path)
    assert res.returncode == 2 and res.stderr.count("\n") == 1
    assert res.stderr.startswith("error: ") and "no_such_module" in res.stderr
    res = run_cli("worker", "--requests", "memory://r", "--results", "memory://s",
                  "--program", "tests.evalprog:program", cwd=tmp_path)
    assert res.returncode == 2 and "redis://" in res.stderr and "Traceback" not in res.stderr


def test_an_eval_loop_on_a_target_by_name_retries_and_writes_redacted_records(tmp_path,
                                                                              monkeypatch):
    base_url, stub = start_stub(script=[503])  # the first call fails: the retry layer's job
    monkeypatch.setenv("AGENT_KEY", "sk-agent-secret-5678")
    targets = tmp_path / "targets.yaml"
    targets.write_text("$schema: agentv-targets-v2\ntargets:\n  - name: agent\n"
                       f"    provider: openai\n    base_url: {base_url}/v1\n    model: m\n"
                       "    api_key: ${{ AGENT_KEY }}\n    retry_initial_delay_ms: 10\n")
    out = tmp_path / "records.jsonl"
    try:
        report = run_in_memory("agent", contains, [Sample("a", "What is 2 + 3?", "5"),
                                                   Sample("b", "What is 4 + 4?", "9")],
                               targets=str(targets), out=str(out))
    finally:
        stub.stop()
    by_id = {r.sample_id: r for r in report.results}
    assert by_id["a"].score.passed and not by_id["b"].score.passed
    assert by_id["a"].record["candidate_answer"] == "The answer is 5."
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["eval_id"] for r in records) == ["a", "b"]
    assert max(r["attempt"] for r in records) == 2 and all(r["target"] == "agent"
                                                           for r in records)
    assert "sk-agent-secret-5678" not in out.read_text()
    assert len(stub.completions()) == 3
