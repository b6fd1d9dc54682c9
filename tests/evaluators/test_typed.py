"""The typed Python eval API (seed 002): Score, plain and session-aware evaluators."""
from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from agentv.evaluators import (
    Score,
    adapt,
    all_of,
    all_tools_succeeded,
    any_of,
    categorical_judge,
    contains,
    exact_match,
    is_json,
    is_session_aware,
    json_subset,
    regex,
    token_usage_under,
    tool_call_count,
    tool_called,
    tool_not_called,
    trace_contains,
    within_tolerance,
)
from agentv.evaluators.judge_call import JudgeError
from agentv.evaluators.session import SessionView, session_from_context
from agentv.providers.base import Usage
from agentv.providers.trace import events_from_dicts
from tests.evaluator_helpers import make_ctx, mock_judge


def session(*tools: str, failed: tuple[str, ...] = (), tokens: tuple[int, int] | None = None):
    events = [{"tool": t, "ok": t not in failed} for t in tools]
    usage = Usage(input_tokens=tokens[0], output_tokens=tokens[1]) if tokens else None
    return SessionView(events=tuple(events_from_dicts(events)), usage=usage)


def test_score_is_frozen_and_clamped():
    score = Score(value=1.7, passed=True, reason="r")
    assert score.value == 1.0 and score.passed is True
    with pytest.raises(AttributeError):
        score.value = 0.5  # type: ignore[misc]
    with pytest.raises(TypeError):
        Score(value="high", passed=True)  # type: ignore[arg-type]


def test_exact_match_and_contains_follow_the_seed():
    assert exact_match("hello", "hello").passed
    assert not exact_match("hello", "Hello").passed
    assert exact_match({"a": 1}, {"a": 1}).value == 1.0
    assert contains("The answer is 42.", "42").passed
    assert contains("The answer is 41.", "42").value == 0.0


# Seed 002's custom evaluators, written exactly as in the seed (only imports adapted).
def seed_within_tolerance(tolerance: float):
    def evaluate(output: float, expected: float) -> Score:
        diff = abs(output - expected)
        passed = diff <= tolerance
        value = max(0.0, 1.0 - diff / tolerance) if tolerance > 0 else float(passed)
        return Score(value=value, passed=passed, reason=f"diff={diff:.4f}")
    return evaluate


def seed_json_subset(output: dict, expected: dict) -> Score:
    for key, value in expected.items():
        if key not in output or output[key] != value:
            return Score(value=0.0, passed=False, reason=f"missing or wrong: {key}")
    return Score(value=1.0, passed=True)


def test_seed_custom_evaluators_work_as_written_and_compose():
    check = all_of(seed_json_subset, lambda o, e: Score(1.0, True))
    assert check({"a": 1, "b": 2}, {"a": 1}, None).passed
    assert seed_within_tolerance(0.5)(10.2, 10.0).passed
    combined = any_of(seed_within_tolerance(0.1), seed_within_tolerance(1.0))
    assert combined(10.5, 10.0, None).passed


def test_builtin_within_tolerance_matches_the_seed_formula():
    assert within_tolerance(0.5)(10.25, 10.0) == Score(value=0.5, passed=True,
                                                       reason="diff=0.25 (tolerance 0.5)")
    assert not within_tolerance(0.1)(10.5, 10.0).passed
    assert within_tolerance(0.0)(3, 3).value == 1.0
    assert within_tolerance(0.1, relative=True)(105, 100).passed
    assert within_tolerance(1)("about 41.5 degrees", "42").passed  # last number in text
    assert within_tolerance(1)("no number", 42).reason == "output is not a number"
    with pytest.raises(ValueError):
        within_tolerance(-1)


def test_builtin_json_subset_recurses_and_scores_the_fraction():
    assert json_subset({"a": 1, "b": {"c": 2, "d": 3}}, {"b": {"c": 2}}).passed
    partial = json_subset('{"a": 1, "b": 5}', {"a": 1, "b": 2})
    assert not partial.passed and partial.value == 0.5 and "b" in partial.reason
    assert json_subset("not json", {"a": 1}).reason == "output is not valid JSON"


def test_regex_and_is_json():
    assert regex(r"\d{3}")("code 123", None).passed
    assert not regex(r"^\d+$")("abc", None).passed
    assert is_json()('```json\n{"a": 1}\n```', None).passed
    assert not is_json()("{oops", None).passed
    schema = {"type": "object", "required": ["name"], "properties": {"age": {"type": "integer"}}}
    assert is_json(schema)('{"name": "x", "age": 3}', None).passed
    failed = is_json(schema)('{"age": "three"}', None)
    assert not failed.passed and "name" in failed.reason


def test_all_of_is_mean_and_any_of_is_max():
    half = lambda o, e: Score(0.5, False, "half")  # noqa: E731
    full = lambda o, e: Score(1.0, True)  # noqa: E731
    assert all_of(full, half)("x", "x") == Score(0.75, False, "half")
    assert any_of(half, full)("x", "x").value == 1.0
    assert any_of(half, full)("x", "x").passed
    with pytest.raises(ValueError):
        all_of()


def test_seed_combination_with_session_checks():
    check = all_of(exact_match, tool_called("search"), tool_not_called("fallback"),
                   all_tools_succeeded(), token_usage_under(max_tokens=5000))
    good = check("Paris", "Paris", session("search", tokens=(100, 20)))
    assert good.passed and good.value == 1.0
    bad = check("Paris", "Paris", session("search", "fallback", tokens=(100, 20)))
    assert not bad.passed and bad.value == pytest.approx(0.8)
    nested = any_of(all_of(exact_match, tool_called("x")), contains)
    assert nested("Paris!", "Paris", session()).passed


def test_session_awareness_and_adapt():
    assert not is_session_aware(exact_match)
    assert is_session_aware(tool_called("x"))
    assert is_session_aware(lambda o, e, s: Score(1, True))

    def with_option(output: str, expected: str, limit: int = 3) -> Score:
        return Score(1.0, True)
    assert not is_session_aware(with_option)
    adapted = adapt(exact_match)
    assert is_session_aware(adapted) and adapted("a", "a", None).passed
    assert adapt(tool_called("x")) is not None


def test_session_checks_on_empty_and_missing_traces():
    empty = SessionView()
    assert not tool_called("search")(None, None, empty).passed
    assert tool_not_called("search")(None, None, empty).passed
    assert all_tools_succeeded()(None, None, empty).passed
    missing = tool_called("search")(None, None, None)
    assert not missing.passed and "no trace" in missing.reason
    assert token_usage_under(10)(None, None, empty).reason == "no token usage reported"


def test_tool_call_count_bounds_and_failures():
    view = session("search", "search", "fetch", failed=("fetch",))
    assert tool_call_count("search", min_count=1, max_count=2)(None, None, view).passed
    assert not tool_call_count("search", max_count=1)(None, None, view).passed
    with pytest.raises(ValueError):
        tool_call_count("x", min_count=3, max_count=1)
    failed = all_tools_succeeded()(None, None, view)
    assert not failed.passed and "fetch" in failed.reason


def test_trace_contains_with_callable_and_mapping_predicates():
    view = SessionView(events=tuple(events_from_dicts([
        {"tool": "search", "input": {"q": "paris"}},
        {"type": "llm_call", "model": "gpt", "input_tokens": 5, "output_tokens": 1}])))
    assert trace_contains("llm_call")(None, None, view).passed
    by_function = trace_contains("tool_call", lambda e: e.arguments["q"] == "paris")
    assert by_function(None, None, view).passed
    by_mapping = trace_contains(predicate={"name": "search", "arguments": {"q": "paris"}})
    assert by_mapping(None, None, view).passed
    assert not trace_contains("tool_call", {"name": "fetch"})(None, None, view).passed
    assert not trace_contains("llm_call", min_count=2)(None, None, view).passed


def test_session_from_context_reads_trace_usage_and_messages():
    ctx = make_ctx("ok", trace=[{"tool": "a", "duration_ms": 5},
                                {"type": "llm_call", "input_tokens": 10, "output_tokens": 2,
                                 "cost_usd": 0.5}])
    view = session_from_context(ctx)
    assert [e.name for e in view.tool_calls()] == ["a"]
    assert view.total_tokens == 12 and view.cost_usd == 0.5 and view.duration_ms == 5
    messages = [{"role": "assistant", "tool_calls": [
        {"tool": "Read", "input": {"path": "x"}, "duration_ms": 45},
        {"id": "1", "type": "function", "function": {"name": "Edit", "arguments": '{"a": 1}'}}]}]
    view = session_from_context(make_ctx("ok", output_messages=messages))
    assert [(e.name, e.arguments) for e in view.tool_calls()] == [("Read", {"path": "x"}),
                                                                  ("Edit", {"a": 1})]
    assert view.has_trace
    assert not session_from_context(make_ctx("ok")).has_trace


def test_categorical_judge_typed_api_maps_labels():
    judge = categorical_judge(mock_judge({"rating": "good", "reason": "minor gaps"}), "helpful")
    score = judge("answer", "reference")
    assert score == Score(0.75, True, "good: minor gaps")
    assert not categorical_judge(mock_judge({"rating": "fair", "reason": ""}))("a", "b").passed
    with pytest.raises(JudgeError, match="contract twice"):
        categorical_judge(mock_judge({"score": 1}))("a", "b")

    async def inside_a_running_loop():
        return judge("answer", "reference")
    assert asyncio.run(inside_a_running_loop()).value == 0.75


def test_importing_the_typed_api_stays_light():
    code = ("import sys, evaluators; "
            "print(sorted(m for m in ('pydantic', 'prefect', 'litellm', 'subprocess') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
