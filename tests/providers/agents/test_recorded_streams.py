"""The claude, copilot and pi stream parsers on event streams the real programs wrote
(``fixtures/<program>/<scenario>.jsonl``, recorded verbatim by ``fixtures/record.py`` from
Claude Code 2.1.328, Copilot CLI 1.0.102 and pi 0.73.1 against the loopback model API, with
the time each line arrived): the answer, a tool call's name, arguments, result and duration,
a failing tool, tokens, cost, the program's own duration, a failed model call. Fast: no
program runs."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentv.providers.agents import claude, copilot, pi
from agentv.providers.agents.events import AgentRun
from agentv.providers.trace import summarize
from tests.agent_programs import PI_PRICES, SHELL_TOOL

FIXTURES = Path(__file__).parent / "fixtures"
START = 1_790_000_000.0
TOOL_TASK = "sleep 0.3; cat data/facts.md"
FAILING_TASK = "sleep 0.2; echo broken >&2; exit 3"


def lines(program: str, scenario: str) -> list[tuple[float, str]]:
    base = FIXTURES / program / scenario
    text = base.with_suffix(".jsonl").read_text(encoding="utf-8")
    at = json.loads(base.with_suffix(".at.json").read_text(encoding="utf-8"))
    stream = text.splitlines(keepends=True)
    assert len(stream) == len(at)
    return [(START + t, line) for t, line in zip(at, stream)]


def events(program: str, scenario: str) -> list[dict[str, Any]]:
    return [json.loads(line) for _, line in lines(program, scenario)]


def parse(program: str, scenario: str) -> AgentRun:
    if program == "claude":
        return claude.parse_stream(lines(program, scenario), "claude-stub")
    if program == "pi":
        return pi.parse_stream(lines(program, scenario), "gpt-stub")
    run = copilot.parse_stream(lines(program, scenario), "gpt-stub")
    copilot.add_usage(run, FIXTURES / "copilot" / f"{scenario}.usage.json")
    return run


def arrived(program: str, scenario: str, kind: str) -> float:
    """When the first line of the stream holding ``kind`` arrived."""
    return next(at for at, line in lines(program, scenario) if kind in line)


def pi_call_cost(inp: int, out: int, cached: int) -> float:
    return (inp * PI_PRICES["input"] + out * PI_PRICES["output"]
            + cached * PI_PRICES["cacheRead"]) / 1e6


PROGRAMS = ["claude", "copilot", "pi"]


@pytest.mark.parametrize("program", PROGRAMS)
def test_answer_tokens_and_one_model_call(program):
    run = parse(program, "answer")
    assert run.text == "The answer is 42" and run.failure is None
    assert summarize(run.trace)["llm_call_count"] == 1
    u = run.usage
    assert (u.input_tokens, u.output_tokens, u.cached_tokens) == (100, 10, 20)


@pytest.mark.parametrize("program", PROGRAMS)
def test_tool_call_name_arguments_result_and_duration(program):
    run = parse(program, "tool")
    calls = [e for e in run.trace if e.type == "tool_call"]
    assert [c.name for c in calls] == [SHELL_TOOL[program]]
    call = calls[0]
    assert call.ok and call.arguments["command"] == TOOL_TASK
    assert "ANSWER: 42" in call.result
    assert call.duration_ms >= 300  # the command sleeps 0.3 s
    assert run.text.startswith("command output: ANSWER: 42")
    summary = summarize(run.trace)
    assert summary["llm_call_count"] == 2 and summary["error_count"] == 0
    u = run.usage
    assert (u.input_tokens, u.output_tokens, u.cached_tokens) == (200, 20, 40)


@pytest.mark.parametrize("program, start, end", [
    ("claude", '"tool_use"', '"tool_result"'),
    ("copilot", '"tool.execution_start"', '"tool.execution_complete"'),
    ("pi", '"tool_execution_start"', '"tool_execution_end"')])
def test_tool_duration_is_from_announcement_to_result(program, start, end):
    call = next(e for e in parse(program, "tool").trace if e.type == "tool_call")
    expected = (arrived(program, "tool", end) - arrived(program, "tool", start)) * 1000
    assert call.duration_ms == pytest.approx(expected, abs=0.01)


@pytest.mark.parametrize("program, message", [
    ("claude", "Exit code 3\nbroken"), ("copilot", "exit code 3"),
    ("pi", "Command exited with code 3")])
def test_failing_tool_is_a_failed_call(program, message):
    run = parse(program, "failing_tool")
    call = next(e for e in run.trace if e.type == "tool_call")
    assert not call.ok and call.arguments["command"] == FAILING_TASK
    assert message in call.result and "broken" in call.result and call.duration_ms >= 200
    assert summarize(run.trace)["error_count"] == 1
    assert run.failure is None and run.text.startswith("command output:")


def test_copilot_marks_its_own_success_with_exit_code_3_failed():
    done = next(e for e in events("copilot", "failing_tool")
                if e["type"] == "tool.execution_complete")
    assert done["data"]["success"] is True and done["data"]["shellExecution"]["exitCode"] == 3
    call = next(e for e in parse("copilot", "failing_tool").trace if e.type == "tool_call")
    assert not call.ok and call.extra["exit_code"] == 3


@pytest.mark.parametrize("scenario", ["answer", "tool", "failing_tool"])
def test_claude_cost_and_duration_are_its_result_events(scenario):
    result = events("claude", scenario)[-1]
    assert result["type"] == "result" and result["total_cost_usd"] > 0
    run = parse("claude", scenario)
    assert run.usage.cost_usd == pytest.approx(result["total_cost_usd"])
    assert run.duration_ms == result["duration_ms"] > 0


@pytest.mark.parametrize("scenario, calls", [("answer", 1), ("tool", 2), ("failing_tool", 2)])
def test_pi_cost_is_the_sum_of_its_priced_model_calls(scenario, calls):
    run = parse("pi", scenario)
    per_call = pi_call_cost(80, 10, 20)
    assert run.usage.cost_usd == pytest.approx(calls * per_call)
    llm = [e for e in run.trace if e.type == "llm_call"]
    assert [e.cost_usd for e in llm] == pytest.approx([per_call] * calls)
    totals = [e["message"]["usage"]["cost"]["total"] for e in events("pi", scenario)
              if e["type"] == "message_end" and e["message"]["role"] == "assistant"]
    assert sum(totals) == pytest.approx(run.usage.cost_usd)


@pytest.mark.parametrize("scenario", ["answer", "tool", "failing_tool", "model_error"])
def test_copilot_duration_is_its_session_duration(scenario):
    result = events("copilot", scenario)[-1]
    assert result["type"] == "result"
    assert parse("copilot", scenario).duration_ms == result["usage"]["sessionDurationMs"] > 0


@pytest.mark.parametrize("program", PROGRAMS)
def test_failed_model_call_is_the_runs_failure(program):
    run = parse(program, "model_error")
    assert "stub: model overloaded" in run.failure
    assert not [e for e in run.trace if e.type == "tool_call"]
