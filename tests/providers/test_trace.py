"""AgentV's trace_summary rules: written whenever the target reported anything trace-like,
tool calls counted as events, provider-reported usage/cost/duration merged over the
trace's own sums."""
from __future__ import annotations

from agentv.providers.agents.output import parse_output, trace_summary
from agentv.providers.base import Usage
from agentv.providers.trace import TraceEvent


def test_nothing_reported_means_no_summary():
    assert trace_summary(None, None) is None


def test_metrics_without_tool_calls_still_summarize():
    """AgentV's mock metrics agent: usage, cost and duration, no tool call."""
    parsed = parse_output('{"text": "Done.", "token_usage": {"input": 15, "output": 12, '
                          '"cached": 3}, "cost_usd": 0.0001, "duration_ms": 245}')
    summary = trace_summary(parsed.trace, parsed.usage, parsed.duration_ms,
                            parsed.output_messages)
    assert summary == {"event_count": 0, "tool_names": [], "tool_calls_by_name": {},
                       "error_count": 0, "llm_call_count": 0,
                       "token_usage": {"input": 15, "output": 12, "cached": 3, "total": 27},
                       "cost_usd": 0.0001, "duration_ms": 245}
    assert isinstance(summary["duration_ms"], int)  # 245, as AgentV writes it


def test_tool_calls_are_events_in_call_order_and_provider_metrics_win():
    trace = [TraceEvent(name="search", duration_ms=10), TraceEvent(type="llm_call", model="m",
                                                                   input_tokens=1),
             TraceEvent(name="read", ok=False), TraceEvent(name="search", duration_ms=5)]
    messages = [{"role": "assistant", "content": "a"}]
    summary = trace_summary(trace, Usage(100, 20, 0.5), 1234.5, messages)
    assert summary["event_count"] == 3 and summary["llm_call_count"] == 1
    assert list(summary["tool_calls_by_name"].items()) == [("search", 2), ("read", 1)]
    assert summary["tool_names"] == ["read", "search"] and summary["error_count"] == 1
    assert summary["tool_durations"] == {"search": [10, 5]}
    assert summary["token_usage"] == {"input": 100, "output": 20, "total": 120}
    assert (summary["cost_usd"], summary["duration_ms"]) == (0.5, 1234.5)


def test_assistant_messages_count_as_llm_calls_without_llm_events():
    messages = [{"role": "assistant", "content": "a"}, {"role": "tool", "content": "t"},
                {"role": "assistant", "content": "b"}]
    assert trace_summary([], None, None, messages)["llm_call_count"] == 2
