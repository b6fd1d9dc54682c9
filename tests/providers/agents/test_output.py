"""One tool-call parser: whatever shape a target's ``output_messages`` carry (AgentV's
``tool_calls`` / camelCase ``toolCalls``, OpenAI's ``function`` items with ``role: tool``
results), the record's ``trace_summary`` and the trace evaluators see the same calls."""
from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import yaml

from agentv.tasks.engine.case_runner import CaseRunner, RunOptions
from agentv.tasks.engine.runtime import build_runtimes, close_runtimes
from agentv.tasks.plan.plan import EvalOptions, build_plan

AGENTV = [{"role": "assistant", "content": "",
           "tool_calls": [{"tool": "search", "input": {"q": "rest"}, "output": "3 hits",
                           "duration_ms": 12}]},
          {"role": "assistant", "content": "found it"}]
CAMEL = [{"role": "assistant", "content": "",
          "toolCalls": [{"tool": "search", "input": {"q": "rest"}, "output": "3 hits",
                         "duration_ms": 12}]},
         {"role": "assistant", "content": "found it"}]
OPENAI = [{"role": "assistant", "content": None,
           "tool_calls": [{"id": "call_1", "type": "function", "duration_ms": 12,
                           "function": {"name": "search",
                                        "arguments": json.dumps({"q": "rest"})}}]},
          {"role": "tool", "tool_call_id": "call_1", "content": "3 hits"},
          {"role": "assistant", "content": "found it"}]


def run_case(tmp_path: Path, messages: list[dict]) -> dict:
    """One case through the real case runner against the mock target answering with
    ``messages`` (no trace of its own), scored by trace evaluators."""
    target = {"name": "agent", "provider": "mock", "response": "found it",
              "output_messages": messages}
    (tmp_path / "targets.yaml").write_text(yaml.safe_dump(
        {"$schema": "agentv-targets-v2", "targets": [target]}))
    suite = tmp_path / "s.yaml"
    suite.write_text(yaml.safe_dump({
        "$schema": "agentv-eval-v2", "target": "agent",
        "execution": {"evaluators": [
            {"name": "searched", "type": "tool_called", "tool": "search"},
            {"name": "args", "type": "trace_contains",
             "predicate": {"name": "search", "arguments": {"q": "rest"}}},
            {"name": "order", "type": "tool_trajectory", "mode": "exact",
             "expected": [{"tool": "search", "args": {"q": "rest"}, "max_duration_ms": 100}]}]},
        "evalcases": [{"id": "c1", "input": "find rest"}]}))
    plan = build_plan(EvalOptions(paths=[str(suite)], targets=str(tmp_path / "targets.yaml")))
    runtimes = build_runtimes(plan)

    async def go() -> dict:
        try:
            return await CaseRunner(runtimes, RunOptions()).run(plan.jobs[0])
        finally:
            await close_runtimes(runtimes)
    return asyncio.run(go())


@pytest.mark.parametrize("messages", [AGENTV, CAMEL, OPENAI], ids=["agentv", "camel", "openai"])
def test_summary_and_evaluators_see_the_same_calls(tmp_path, messages):
    record = run_case(tmp_path, messages)
    assert record["error"] is None
    summary = record["trace_summary"]
    assert summary["tool_names"] == ["search"] and summary["tool_calls_by_name"] == {"search": 1}
    scores = {r["name"]: r["score"] for r in record["evaluator_results"]}
    assert scores == {"searched": 1.0, "args": 1.0, "order": 1.0}, record["evaluator_results"]


def test_results_of_openai_calls_come_from_tool_messages():
    from agentv.evaluators.session import message_tool_calls
    from agentv.providers.agents.output import trace_from_messages
    calls = trace_from_messages(OPENAI)
    assert [(c.name, c.arguments, c.result) for c in calls] == [("search", {"q": "rest"}, "3 hits")]
    assert message_tool_calls(CAMEL) == trace_from_messages(AGENTV)
    assert message_tool_calls([{"role": "assistant", "content": "no tools"}]) == []
