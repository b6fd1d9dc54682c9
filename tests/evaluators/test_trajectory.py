"""``tool_trajectory`` / ``tool-trajectory``: one class for both AgentV generations, scored as
AgentV 4.42.4 scores it (graders/tool-trajectory.ts; the oracle tests in tests/compat check the
same against the real program); the generation changes only the record and how much a file must
say."""
from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentv.evaluators.base import EvalContext, run_evaluator
from agentv.evaluators.registry import AGENTV4_EVALUATORS, EVALUATORS, evaluator_class
from agentv.evaluators.trajectory import ToolTrajectory, args_match
from agentv.providers.base import ConfigError
from agentv.tasks.engine.record4 import score_entry
from agentv.tasks.load.agentv4.assertions import AssertionBuilder
from tests.evaluator_helpers import make_ctx, run

RESEARCH = [{"tool": "knowledgeSearch", "input": {"q": "rest"}, "duration_ms": 30},
            {"tool": "knowledgeSearch", "input": {"q": "graphql"}, "duration_ms": 35},
            {"tool": "documentRetrieve", "input": {"id": 7}, "duration_ms": 250},
            {"type": "llm_call", "model": "m", "input_tokens": 400, "output_tokens": 100}]


def v2(config: dict, ctx: EvalContext):
    return run({"type": "tool_trajectory", **config}, ctx)


def v4(config: dict, ctx: EvalContext, warnings: list | None = None):
    """Built as the AgentV 4.x loader builds an assertion (its generation's rules)."""
    builder = AssertionBuilder("suite.eval.yaml", Path("."), (warnings or []).append)
    evaluator = builder.make("tool-trajectory", {**config}, 1)
    return asyncio.run(run_evaluator(evaluator, ctx))


def research() -> EvalContext:
    return make_ctx("done", trace=RESEARCH)


def test_both_spellings_are_one_class():
    assert evaluator_class("tool_trajectory") is ToolTrajectory
    assert AGENTV4_EVALUATORS["tool-trajectory"] == EVALUATORS["tool_trajectory"]


def test_any_order_minimums_partial_score_in_each_generations_words():
    minimums = {"knowledgeSearch": 2, "documentRetrieve": 1, "generateReport": 1}
    old = v2({"mode": "any_order", "minimums": minimums}, research())
    assert old.score == pytest.approx(2 / 3)
    assert old.hits[0] == "knowledgeSearch: called 2 times (required ≥2)"  # AgentV 2.6.1's
    assert old.misses == ["generateReport: called 0 times (required ≥1)"]
    new = v4({"mode": "any_order", "minimums": minimums}, research())
    assert new.score == pytest.approx(2 / 3)
    assert new.misses == ["generateReport: called 0 times (required >=1)"]
    empty = v4({"mode": "any_order", "minimums": {}}, research())
    assert empty.score == 1 and empty.hits == ["No tool requirements specified"]


def test_in_order_allows_gaps_and_checks_args():
    ok = v2({"mode": "in_order", "expected": [
        {"tool": "knowledgeSearch", "args": {"q": "rest"}},
        {"tool": "documentRetrieve", "args": "any"}]}, research())
    assert ok.score == 1 and ok.hits == ["Found knowledgeSearch at position 0",
                                         "Found documentRetrieve at position 2"]
    wrong = v2({"mode": "in_order", "expected": [
        {"tool": "documentRetrieve"}, {"tool": "knowledgeSearch"},
        {"tool": "documentRetrieve", "args": {"id": 8}}]}, research())
    assert wrong.score == pytest.approx(1 / 3)
    assert wrong.misses == [
        "Expected knowledgeSearch at position 1, not found in remaining trace",
        "Expected documentRetrieve at position 2, not found in remaining trace"]


def test_in_order_step_takes_the_next_call_of_its_tool_even_with_other_args():
    """4.42.4: the next call of the tool is the step's; wrong args miss it and move on."""
    result = v2({"mode": "in_order", "expected": [
        {"tool": "knowledgeSearch", "args": {"q": "graphql"}}]}, research())
    assert result.score == 0 and result.misses == [
        "Expected knowledgeSearch at position 0: tool found at 0 but args mismatch"]


def test_exact_counts_expected_steps_and_notes_a_different_length():
    ctx = research()
    exact = v2({"mode": "exact", "expected": [
        {"tool": "knowledgeSearch"}, {"tool": "knowledgeSearch"}, {"tool": "documentRetrieve"}]},
        ctx)
    assert exact.score == 1 and exact.hits[2] == "Position 2: documentRetrieve"
    short = v2({"mode": "exact", "expected": [{"tool": "knowledgeSearch"}, {"tool": "fetch"}]},
               ctx)
    assert short.score == pytest.approx(1 / 2)  # the length is an assertion, not a score part
    assert short.misses == ["Expected 2 tool calls, got 3",
                            "Position 1: expected fetch, got knowledgeSearch"]
    long = v4({"mode": "exact", "expected": [{"tool": "knowledgeSearch"}] * 5}, ctx)
    assert long.score == pytest.approx(2 / 5)
    assert long.misses[-1] == "Position 4: expected knowledgeSearch, got nothing"


def test_latency_checks_count_for_unmatched_steps_and_skip_unknown_durations():
    result = v2({"mode": "in_order", "expected": [
        {"tool": "knowledgeSearch", "max_duration_ms": 100},
        {"tool": "documentRetrieve", "max_duration_ms": 100}]}, research())
    assert result.score == pytest.approx(3 / 4)
    assert "knowledgeSearch completed in 30ms (max: 100ms)" in result.hits
    assert result.misses == ["documentRetrieve took 250ms (max: 100ms)"]
    unmatched = v4({"mode": "in_order", "expected": [  # oracle_regressions/trajectory.eval.yaml
        {"tool": "knowledgeSearch", "max_duration_ms": 50},
        {"tool": "missing", "max_duration_ms": 50}]}, research())
    assert unmatched.score == pytest.approx(2 / 4)
    no_duration = make_ctx("done", trace=[{"tool": "Read"}])
    skipped = v2({"mode": "in_order", "expected": [{"tool": "Read", "max_duration_ms": 5}]},
                 no_duration)
    assert skipped.score == 1 and skipped.warnings == [
        "No duration data for Read; latency assertion skipped"]


def test_superset_and_subset():
    ctx = research()
    superset = v4({"mode": "superset", "expected": [
        {"tool": "documentRetrieve"}, {"tool": "knowledgeSearch"}, {"tool": "knowledgeSearch"},
        {"tool": "knowledgeSearch"}]}, ctx)
    assert superset.score == pytest.approx(3 / 4)
    assert superset.misses == ["Expected knowledgeSearch not found in actual trajectory"]
    subset = v2({"mode": "subset", "expected": [{"tool": "knowledgeSearch"}]}, ctx)
    assert subset.score == pytest.approx(2 / 3)
    assert subset.misses == ["Position 2: documentRetrieve is not in allowed set"]
    none = make_ctx("done", trace=[])
    assert v4({"mode": "subset", "expected": []}, none).hits == [
        "No tool calls and no expected tools"]
    assert v4({"mode": "subset", "expected": []}, ctx).misses == [
        "3 unexpected tool call(s) with empty allowed list"]


@pytest.mark.parametrize("expected, actual, mode, matches", [
    ({"q": "a"}, {"q": "a", "n": 1}, "exact", False),
    ({"q": "a"}, {"q": "a", "n": 1}, "superset", True),
    ({"q": "a", "n": 1}, {"q": "a"}, "subset", True),
    ({"q": "a"}, {"q": "a", "n": 1}, "subset", False),
    ({"q": "a"}, {"q": "b"}, "ignore", True),
    ({"o": {"k": 1}, "x": 1}, {"o": {"k": 1}, "x": 2}, ["o.k"], True),
    ({"o": {"k": 1}}, {"o": {"k": 2}}, ["o.k"], False),
    ({"q": "a"}, '{"q": "a"}', "exact", True),  # arguments reported as JSON text
    ("any", None, "exact", True),
    ({"q": "a"}, None, "exact", False),
])
def test_args_match(expected, actual, mode, matches):
    assert args_match(expected, actual, mode) is matches


def test_args_match_setting_per_evaluator_and_per_item():
    ctx = research()
    loose = v4({"mode": "exact", "args_match": "superset", "expected": [
        {"tool": "knowledgeSearch", "args": {}}, {"tool": "knowledgeSearch", "args": {"q": "x"},
                                                  "args_match": "ignore"},
        {"tool": "documentRetrieve", "args": {"id": 7}}]}, ctx)
    assert loose.score == 1
    strict = v2({"mode": "exact", "expected": [{"tool": "knowledgeSearch", "args": {}}]}, ctx)
    assert "Position 0: knowledgeSearch args mismatch" in strict.misses


def test_reads_output_message_tool_calls_and_timestamps():
    messages = [{"role": "assistant", "tool_calls": [
        {"tool": "Read", "input": {"file_path": "config.json"}, "duration_ms": 45}]}]
    ctx = make_ctx("ok", output_messages=messages)
    assert v2({"mode": "exact", "expected": [
        {"tool": "Read", "args": {"file_path": "config.json"}, "max_duration_ms": 200}]},
        ctx).score == 1
    timed = make_ctx("ok", trace=[{"tool": "Read", "start": "2024-01-15T09:00:00Z",
                                   "end": "2024-01-15T09:00:00.500Z"}])
    assert v2({"mode": "in_order", "expected": [{"tool": "Read", "max_duration_ms": 100}]},
              timed).misses == ["Read took 500ms (max: 100ms)"]


def test_without_trace_and_with_empty_trace():
    absent = v2({"mode": "any_order", "minimums": {"x": 1}}, make_ctx("answer"))
    assert absent.score == 0 and absent.misses == ["No trace available for evaluation"]
    assert absent.reasoning == "The target reported no trace and no tool calls."
    empty = v2({"mode": "in_order", "expected": [{"tool": "x"}]}, make_ctx("answer", trace=[]))
    assert empty.score == 0 and "not found" in empty.misses[0]


def test_record_shape_is_the_generations():
    ctx = research()
    config = {"mode": "exact", "expected": [{"tool": "fetch"}]}
    old = v2(config, ctx).to_record()
    assert old["details"] == {"mode": "exact", "tool_calls": [
        "knowledgeSearch", "knowledgeSearch", "documentRetrieve"]}
    assert old["reasoning"] == "0/2 trajectory checks passed (exact, 3 tool call(s))"
    new = v4(config, ctx)
    entry = score_entry(new)
    assert new.type == "tool-trajectory" and "details" not in entry and not new.reasoning
    assert entry["assertions"] == [
        {"text": "Expected 1 tool calls, got 3", "passed": False},
        {"text": "Position 0: expected fetch, got knowledgeSearch", "passed": False}]


def test_v2_refuses_what_says_nothing_and_4x_takes_what_agentv_takes():
    with pytest.raises(ConfigError) as err:
        v2({"mode": "random", "expected": [{"tool": "x"}]}, make_ctx())
    assert err.value.field == "mode" and "superset" in str(err.value)
    with pytest.raises(ConfigError, match="needs a non-empty 'expected'"):
        v2({"mode": "exact", "expected": []}, make_ctx())
    with pytest.raises(ConfigError, match="minimums"):
        v2({"mode": "any_order"}, make_ctx())
    with pytest.raises(ConfigError, match="use mode 'superset'"):
        v2({"mode": "any_order", "minimums": {"x": 1}, "expected": [{"tool": "x"}]}, make_ctx())
    with pytest.raises(ConfigError, match=">= 0"):
        v2({"mode": "any_order", "minimums": {"x": -1}}, make_ctx())
    ctx = research()
    assert v4({"mode": "exact", "expected": []}, ctx).hits == ["No tool sequence specified"]
    assert v4({"mode": "any_order", "minimums": {"x": 0}, "expected": [{"tool": "y"}]},
              ctx).score == 1  # 4.42.4 reads only minimums
    with pytest.raises(ConfigError, match="needs an 'expected' list"):  # 4.42.4 drops it
        v4({"mode": "in_order"}, ctx)
    with pytest.raises(ConfigError, match="needs 'minimums'"):
        v4({"mode": "any_order"}, ctx)
