"""Deterministic YAML checks and the all_of / any_of combinators."""
from __future__ import annotations

import pytest

from agentv.providers.base import ConfigError
from tests.evaluator_helpers import make_ctx, run


def test_exact_match_uses_value_or_the_reference_answer():
    ctx = make_ctx("  Paris\n", reference_answer="Paris")
    assert run({"type": "exact_match"}, ctx).verdict == "pass"
    assert run({"type": "exact_match", "value": "paris"}, ctx).score == 0.0
    assert run({"type": "exact_match", "value": "paris", "case_sensitive": False}, ctx).score == 1


def test_exact_match_without_any_expected_value_is_a_clear_miss():
    result = run({"type": "exact_match"}, make_ctx("Paris"))
    assert result.score == 0.0 and "no expected value" in result.misses[0]
    assert result.error is None


def test_exact_match_compares_structured_expected_content_as_json():
    ctx = make_ctx('{"b": 2, "a": 1}',
                   expected_messages=[{"role": "assistant", "content": {"a": 1, "b": 2}}])
    assert run({"type": "exact_match"}, ctx).score == 1.0
    assert run({"type": "exact_match"}, make_ctx("nope", expected_messages=[
        {"role": "assistant", "content": {"a": 1}}])).misses[0].startswith("answer is not JSON")


def test_contains_single_and_many_values():
    ctx = make_ctx("The capital of France is Paris.", reference_answer="Paris")
    assert run({"type": "contains"}, ctx).score == 1.0
    partial = run({"type": "contains", "value": ["Paris", "Lyon"]}, ctx)
    assert partial.score == 0.5 and partial.verdict == "fail" and "Lyon" in partial.misses[0]
    assert run({"type": "contains", "value": "PARIS", "case_sensitive": False}, ctx).score == 1


def test_regex_flags_and_invalid_pattern():
    ctx = make_ctx("Order ID: ab-123")
    assert run({"type": "regex", "pattern": r"AB-\d+", "ignore_case": True}, ctx).score == 1
    assert run({"type": "regex", "pattern": r"^\d+$"}, ctx).score == 0
    with pytest.raises(ConfigError) as err:
        run({"type": "regex", "pattern": "(unclosed"}, ctx)
    assert err.value.field == "pattern" and "invalid regular expression" in str(err.value)


def test_is_json_with_inline_and_file_schema(tmp_path):
    schema = {"type": "object", "required": ["id"]}
    (tmp_path / "schema.json").write_text('{"type": "array"}')
    assert run({"type": "is_json", "schema": schema}, make_ctx('{"id": 1}')).score == 1
    assert run({"type": "is_json", "schema": schema}, make_ctx("{}")).score == 0
    assert run({"type": "is_json"}, make_ctx("plain words")).misses == ["output is not valid JSON"]
    assert run({"type": "is_json", "schema": "schema.json"}, make_ctx("[1]"),
               base_dir=str(tmp_path)).score == 1
    with pytest.raises(ConfigError, match="invalid JSON schema"):
        run({"type": "is_json", "schema": {"type": "nonsense"}}, make_ctx("{}"))
    with pytest.raises(ConfigError, match="schema file not found"):
        run({"type": "is_json", "schema": "missing.json"}, make_ctx("{}"), base_dir=str(tmp_path))


def test_json_subset_value_or_expected_answer():
    ctx = make_ctx('Here: {"city": "Paris", "country": "FR", "pop": 2}',
                   reference_answer='{"city": "Paris", "country": "FR"}')
    assert run({"type": "json_subset"}, ctx).score == 1.0
    wrong = run({"type": "json_subset", "value": {"city": "Lyon", "country": "FR"}}, ctx)
    assert wrong.score == 0.5 and "city" in wrong.misses[0]
    assert run({"type": "json_subset", "value": {"a": 1}}, make_ctx("no json")).score == 0


def test_within_tolerance_against_value_and_reference():
    ctx = make_ctx("The result is 3.14159", reference_answer="3.1416")
    assert run({"type": "within_tolerance", "tolerance": 0.001}, ctx).verdict == "pass"
    assert run({"type": "within_tolerance", "tolerance": 0.1, "value": 3}, ctx).score == 0
    assert run({"type": "within_tolerance", "tolerance": 0.1, "value": 3, "relative": True},
               ctx).verdict == "pass"
    assert run({"type": "within_tolerance", "tolerance": 1}, make_ctx("n/a", reference_answer="3")
               ).misses == ["output is not a number"]
    with pytest.raises(ConfigError) as err:
        run({"type": "within_tolerance"}, ctx)
    assert err.value.field == "tolerance"


def test_all_of_needs_every_member_and_scores_the_mean():
    ctx = make_ctx("Paris is the capital.", trace=[{"tool": "search"}])
    result = run({"type": "all_of", "evaluators": [
        {"type": "contains", "value": "Paris"},
        {"type": "tool_called", "tool": "search"},
        {"type": "contains", "value": "Berlin"}]}, ctx)
    assert result.verdict == "fail" and result.score == pytest.approx(2 / 3)
    assert [c.name for c in result.children] == ["contains", "tool_called", "contains_2"]
    assert "[contains_2] missing: 'Berlin'" in result.misses
    assert result.to_record()["evaluator_results"][1]["verdict"] == "pass"


def test_any_of_needs_one_member_and_scores_the_max_and_nests():
    ctx = make_ctx("Paris", reference_answer="Paris")
    result = run({"type": "any_of", "evaluators": [
        {"type": "exact_match", "value": "London"},
        {"type": "all_of", "name": "strict", "evaluators": [
            {"type": "exact_match"}, {"type": "regex", "pattern": "^P"}]}]}, ctx)
    assert result.verdict == "pass" and result.score == 1.0
    assert result.children[1].children[1].name == "regex"


def test_combinator_member_errors_stay_inside_the_member():
    ctx = make_ctx("answer")  # no judge: the llm_judge member fails on its own
    result = run({"type": "any_of", "evaluators": [{"type": "llm_judge"},
                                                   {"type": "contains", "value": "ans"}]}, ctx)
    assert result.verdict == "pass" and result.error is None
    assert result.children[0].error and "no judge" in result.children[0].error


def test_combinator_config_errors_point_at_the_member():
    with pytest.raises(ConfigError, match="needs a non-empty 'evaluators' list"):
        run({"type": "all_of", "evaluators": []}, make_ctx())
    with pytest.raises(ConfigError) as err:
        run({"type": "all_of", "evaluators": [{"type": "within_tolerance", "tolerance": -2}]},
            make_ctx())
    assert err.value.field == "tolerance"


@pytest.mark.parametrize("kind", ["all_of", "any_of"])
def test_yaml_and_typed_combinators_share_one_rule(kind):
    """The same members give the same score and pass/fail through the YAML combinator and
    the typed function (both use evaluators.score.combine)."""
    from agentv.evaluators import all_of, any_of, regex, tool_called
    from agentv.evaluators.session import session_from_context
    ctx = make_ctx("Paris is the capital.", trace=[{"tool": "search"}])
    for members, typed in (
            ([{"type": "regex", "pattern": "Paris"}, {"type": "tool_called", "tool": "search"}],
             [regex("Paris"), tool_called("search")]),
            ([{"type": "regex", "pattern": "Berlin"}, {"type": "tool_called", "tool": "search"}],
             [regex("Berlin"), tool_called("search")]),
            ([{"type": "regex", "pattern": "Berlin"}, {"type": "tool_called", "tool": "x"}],
             [regex("Berlin"), tool_called("x")])):
        yaml_result = run({"type": kind, "evaluators": members}, ctx)
        combined = (all_of if kind == "all_of" else any_of)(*typed)
        score = combined(ctx.candidate_answer, None, session_from_context(ctx))
        assert (yaml_result.score, yaml_result.verdict == "pass") == (score.value, score.passed)
