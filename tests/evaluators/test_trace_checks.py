"""Trace evaluators: session checks and budgets, on mock-target traces (tool_trajectory:
test_trajectory.py)."""
from __future__ import annotations

import pytest

from agentv.providers.base import ConfigError
from tests.evaluator_helpers import make_ctx, run

RESEARCH = [{"tool": "knowledgeSearch", "input": {"q": "rest"}, "duration_ms": 30},
            {"tool": "knowledgeSearch", "input": {"q": "graphql"}, "duration_ms": 35},
            {"tool": "documentRetrieve", "input": {"id": 7}, "duration_ms": 250},
            {"type": "llm_call", "model": "m", "input_tokens": 400, "output_tokens": 100,
             "cost_usd": 0.004}]


def test_session_checks_in_yaml():
    ctx = make_ctx("done", trace=RESEARCH + [{"tool": "write", "status": "error"}])
    assert run({"type": "tool_called", "tool": "documentRetrieve"}, ctx).score == 1
    assert run({"type": "tool_not_called", "tool": "write"}, ctx).score == 0
    assert run({"type": "tool_call_count", "tool": "knowledgeSearch", "min": 2, "max": 2},
               ctx).score == 1
    assert run({"type": "tool_call_count", "name": "knowledgeSearch", "max": 1}, ctx).score == 0
    failed = run({"type": "all_tools_succeeded"}, ctx)
    assert failed.score == 0 and failed.misses == ["failed tools: write"]
    assert run({"type": "token_usage_under", "max_tokens": 500}, ctx).score == 1
    assert run({"type": "trace_contains", "event_type": "llm_call",
                "predicate": {"model": "m"}}, ctx).score == 1
    soap = {"name": "knowledgeSearch", "arguments": {"q": "soap"}}
    assert run({"type": "trace_contains", "predicate": soap}, ctx).score == 0


def test_session_checks_config_errors():
    with pytest.raises(ConfigError, match="tool's name"):
        run({"type": "tool_called"}, make_ctx())
    with pytest.raises(ConfigError, match="below min"):
        run({"type": "tool_call_count", "tool": "x", "min": 3, "max": 1}, make_ctx())
    with pytest.raises(ConfigError, match="event_type"):
        run({"type": "trace_contains"}, make_ctx())


def test_session_checks_with_empty_and_absent_trace():
    empty = make_ctx("x", trace=[])
    assert run({"type": "tool_not_called", "tool": "rm"}, empty).verdict == "pass"
    assert run({"type": "all_tools_succeeded"}, empty).verdict == "pass"
    absent = run({"type": "tool_called", "tool": "search"}, make_ctx("x"))
    assert absent.verdict == "fail" and "reported no trace" in absent.misses[0]


def test_latency_cost_and_token_usage():
    ctx = make_ctx("x", trace=RESEARCH, latency_ms=1200,
                   usage={"input_tokens": 500, "output_tokens": 120, "cost_usd": 0.02})
    assert run({"type": "latency", "threshold": 2000}, ctx).hits == [
        "Duration 1200ms <= 2000ms max"]
    assert run({"type": "latency", "threshold": 1000}, ctx).verdict == "fail"
    assert run({"type": "cost", "budget": 0.05}, ctx).score == 1
    assert run({"type": "cost", "budget": 0.01}, ctx).misses == ["Cost $0.0200 > $0.0100 max"]
    tokens = run({"type": "token_usage", "max_total": 1000, "max_output": 100}, ctx)
    assert tokens.score == 0 and tokens.misses == ["Output tokens 120 > 100 max"]
    with pytest.raises(ConfigError, match="max_total"):
        run({"type": "token_usage"}, ctx)


def test_budgets_without_reported_data_are_misses():
    ctx = make_ctx("x")
    assert run({"type": "latency", "threshold": 10}, ctx).misses == [
        "Duration data not available"]
    assert run({"type": "cost", "budget": 1}, ctx).score == 0
    assert run({"type": "token_usage", "max_total": 10}, ctx).misses == [
        "Total tokens data not available"]


def test_budgets_fall_back_to_trace_sums():
    ctx = make_ctx("x", trace=RESEARCH)
    assert run({"type": "cost", "budget": 0.005}, ctx).score == 1
    assert run({"type": "token_usage", "max_total": 500}, ctx).score == 1
    assert run({"type": "latency", "threshold": 400}, ctx).hits == ["Duration 315ms <= 400ms max"]


def test_execution_metrics_scores_the_fraction_of_limits_held():
    ctx = make_ctx("x", trace=RESEARCH + [{"tool": "editFile"}], latency_ms=3000,
                   usage={"input_tokens": 450, "output_tokens": 380, "cost_usd": 0.0042})
    result = run({"type": "execution_metrics", "max_tool_calls": 10, "max_llm_calls": 0,
                  "max_tokens": 2000, "max_cost_usd": 0.01, "max_duration_ms": 1000,
                  "target_exploration_ratio": 0.75, "exploration_tolerance": 0.1}, ctx)
    assert result.score == pytest.approx(4 / 6)
    assert "Tool calls 4 <= 10 max" in result.hits
    assert "LLM calls 1 > 0 max" in result.misses
    assert result.details["exploration_ratio"] == 0.75
    with pytest.raises(ConfigError, match="at least one limit"):
        run({"type": "execution_metrics"}, ctx)


def test_execution_metrics_without_trace():
    result = run({"type": "execution_metrics", "max_tool_calls": 3,
                  "target_exploration_ratio": 0.5}, make_ctx("x"))
    assert result.score == 0
    assert result.misses == ["Tool calls data not available",
                             "Exploration ratio not available (no tool calls)"]
