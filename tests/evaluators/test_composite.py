"""composite: weighted_average, code_judge and llm_judge aggregators, nesting, isolation."""
from __future__ import annotations

import json
import sys
import textwrap

import pytest

from agentv.providers.base import ConfigError
from tests.evaluator_helpers import make_ctx, run

JUDGE = {"score": 0.6, "hits": ["clear"], "misses": ["short"], "reasoning": "fine"}


def test_weighted_average_uses_aggregator_weights():
    ctx = make_ctx("Paris is the capital", judge=JUDGE)
    result = run({"type": "composite", "name": "gate", "evaluators": [
        {"name": "safety", "type": "llm_judge"},
        {"name": "quality", "type": "contains", "value": "Paris"}],
        "aggregator": {"type": "weighted_average", "weights": {"safety": 0.3, "quality": 0.7}}},
        ctx)
    assert result.score == pytest.approx(0.3 * 0.6 + 0.7 * 1.0)
    assert result.hits == ["[safety] clear", "[quality] found 1 of 1"]
    assert result.misses == ["[safety] short"]
    assert result.reasoning == "safety: fine; quality: found 1 of 1"
    record = result.to_record()
    assert [c["weight"] for c in record["evaluator_results"]] == [0.3, 0.7]
    assert record["evaluator_provider_request"]["aggregator"] == "weighted_average"


def test_default_aggregator_averages_member_weights_and_names_unnamed_members():
    ctx = make_ctx("abc")
    result = run({"type": "composite", "evaluators": [
        {"type": "contains", "value": "a", "weight": 3}, {"type": "contains", "value": "z"}]}, ctx)
    assert result.score == 0.75
    assert [c.name for c in result.children] == ["contains", "contains_2"]


def test_nested_composites_prefix_hits_and_keep_children():
    ctx = make_ctx("The answer is 42", judge=JUDGE)
    result = run({"type": "composite", "name": "all", "evaluators": [
        {"name": "content", "type": "composite", "evaluators": [
            {"name": "accuracy", "type": "contains", "value": "42"},
            {"name": "clarity", "type": "llm_judge"}],
         "aggregator": {"type": "weighted_average", "weights": {"accuracy": 0.6, "clarity": 0.4}}},
        {"name": "safety", "type": "regex", "pattern": "kill"}],
        "aggregator": {"type": "weighted_average", "weights": {"content": 0.7, "safety": 0.3}}},
        ctx)
    assert result.score == pytest.approx(0.7 * (0.6 + 0.4 * 0.6))
    assert "[content] [accuracy] found 1 of 1" in result.hits
    inner = result.to_record()["evaluator_results"][0]
    assert inner["type"] == "composite" and len(inner["evaluator_results"]) == 2


def test_member_exception_is_isolated():
    result = run({"type": "composite", "evaluators": [
        {"name": "judge", "type": "llm_judge"}, {"name": "ok", "type": "contains", "value": "x"}]},
        make_ctx("x"))  # no judge target
    assert result.score == 0.5 and result.error is None
    assert result.children[0].error


def write_script(tmp_path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return f"{sys.executable} {name}"


def test_code_judge_aggregator_gets_member_results(tmp_path):
    command = write_script(tmp_path, "gate.py", """
        import json, sys
        payload = json.load(sys.stdin)
        results = payload["results"]
        safety = results["safety"]["score"]
        score = 0.0 if safety < 0.5 else results["quality"]["score"]
        print(json.dumps({"score": score, "verdict": "pass" if score >= 0.5 else "fail",
                          "hits": ["safety passed"] if safety >= 0.5 else [],
                          "misses": [] if safety >= 0.5 else ["safety failed"],
                          "reasoning": f"members: {sorted(results)}; q={payload['question']}"}))
    """)
    ctx = make_ctx("Safe answer", judge=JUDGE, question="Explain")
    result = run({"type": "composite", "name": "gate", "evaluators": [
        {"name": "safety", "type": "contains", "value": "Safe"},
        {"name": "quality", "type": "llm_judge"}],
        "aggregator": {"type": "code_judge", "path": command}}, ctx, base_dir=str(tmp_path))
    assert result.score == 0.6 and result.verdict == "pass"
    assert result.reasoning == "members: ['quality', 'safety']; q=Explain"
    assert result.evaluator_provider_request == {"aggregator": "code_judge", "script": command}
    assert len(result.children) == 2


def test_code_judge_aggregator_failure_is_the_composites_error(tmp_path):
    command = write_script(tmp_path, "broken.py", "import sys\nsys.exit(3)\n")
    result = run({"type": "composite", "evaluators": [{"type": "contains", "value": "a"}],
                  "aggregator": {"type": "code", "script": command}}, make_ctx("a"),
                 base_dir=str(tmp_path))
    assert result.score == 0 and "exited with code 3" in result.error


def test_llm_judge_aggregator_sees_member_results(tmp_path):
    (tmp_path / "resolve.md").write_text(
        "Results:\n{{EVALUATOR_RESULTS_JSON}}\nTask: {{ question }}")
    ctx = make_ctx("Brief but complete", question="Describe it",
                   judge={"score": 0.9, "hits": ["balanced"], "misses": [], "reasoning": "ok"})
    result = run({"type": "composite", "name": "final", "evaluators": [
        {"name": "concise", "type": "contains", "value": "Brief"},
        {"name": "detail", "type": "contains", "value": "exhaustive"}],
        "aggregator": {"type": "llm_judge", "prompt": "resolve.md"}}, ctx, base_dir=str(tmp_path))
    assert result.score == 0.9 and result.hits == ["balanced"]
    prompt = result.evaluator_provider_request["user_prompt"]
    shown = json.loads(prompt.split("Results:\n", 1)[1].split("\nTask:", 1)[0])
    assert shown["concise"]["score"] == 1.0 and shown["detail"]["verdict"] == "fail"
    assert prompt.endswith("Task: Describe it")


def test_llm_judge_aggregator_with_bad_reply_scores_zero():
    result = run({"type": "composite", "evaluators": [{"type": "contains", "value": "a"}],
                  "aggregator": {"type": "llm_judge"}}, make_ctx("a", judge="no verdict here"))
    assert result.score == 0 and result.details == {"raw_reply": "no verdict here"}
    assert "{{EVALUATOR_RESULTS_JSON}}" not in result.evaluator_provider_request["user_prompt"]


def test_composite_config_errors():
    with pytest.raises(ConfigError, match="unknown member"):
        run({"type": "composite", "evaluators": [{"name": "a", "type": "contains", "value": "x"}],
             "aggregator": {"type": "weighted_average", "weights": {"b": 1}}}, make_ctx())
    with pytest.raises(ConfigError) as err:
        run({"type": "composite", "evaluators": [{"type": "contains", "value": "x"}],
             "aggregator": {"type": "majority"}}, make_ctx())
    assert err.value.field == "aggregator" and "weighted_average" in str(err.value)
    with pytest.raises(ConfigError, match="unknown evaluator type 'nope'"):
        run({"type": "composite", "evaluators": [{"type": "nope"}]}, make_ctx())
    with pytest.raises(ConfigError) as err:
        run({"type": "composite", "evaluators": [{"type": "contains", "weight": -1}]}, make_ctx())
    assert err.value.field == "weight"
