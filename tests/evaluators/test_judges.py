"""categorical_judge (strict label contract) and the ``python`` evaluator."""
from __future__ import annotations

import asyncio
import textwrap

import pytest

from agentv.evaluators import Score
from agentv.evaluators.base import run_evaluator
from agentv.evaluators.python_eval import PythonEvaluator
from agentv.providers.base import ConfigError
from tests.evaluator_helpers import make_ctx, run


@pytest.mark.parametrize("label, score, verdict", [
    ("excellent", 1.0, "pass"), ("good", 0.75, "pass"), ("fair", 0.5, "fail"),
    ("poor", 0.25, "fail"), ("WRONG", 0.0, "fail")])
def test_categorical_labels(label, score, verdict):
    ctx = make_ctx("Paris", judge={"rating": label, "reason": "because"},
                   reference_answer="Paris")
    result = run({"type": "categorical_judge", "criterion": "Factually correct"}, ctx)
    assert (result.score, result.verdict) == (score, verdict)
    assert result.details == {"rating": label.lower()}
    assert "Factually correct" in result.evaluator_provider_request["user_prompt"]


@pytest.mark.parametrize("reply", ['{"rating": "great"}', "good", '{"score": 0.9}'])
def test_categorical_contract_violations_are_the_evaluators_error(reply):
    result = run({"type": "categorical_judge"}, make_ctx("x", judge=reply))
    assert result.score == 0 and "broke the output contract twice" in result.error
    assert "contract" in result.misses[0] and result.details["raw_reply"] == reply
    assert result.judge_call == {"attempts": 2, "asks": 2, "wait_ms": 0.0}


def test_categorical_custom_prompt_file(tmp_path):
    (tmp_path / "judge.md").write_text("Criterion: {{ criterion }}\nAnswer: {{ output }}")
    ctx = make_ctx("42", judge={"rating": "excellent", "reason": ""})
    result = run({"type": "categorical_judge", "criterion": "numeric", "prompt": "judge.md"}, ctx,
                 base_dir=str(tmp_path))
    assert result.evaluator_provider_request["user_prompt"] == "Criterion: numeric\nAnswer: 42"


def test_categorical_needs_a_judge():
    assert "no judge" in run({"type": "categorical_judge"}, make_ctx("x")).error


@pytest.fixture
def checks_module(tmp_path):
    (tmp_path / "suite_checks.py").write_text(textwrap.dedent("""
        from agentv.evaluators import Score

        def polite(output, expected):
            return Score(1.0 if "please" in output else 0.0, "please" in output, "politeness")

        def used_search(output, expected, session):
            return len(session.tool_calls("search")) > 0

        async def length_ratio(output, expected):
            return min(1.0, len(output) / max(1, len(expected)))

        def boom(output, expected):
            raise RuntimeError("evaluator bug")

        def shout(output, expected):
            return "loud"
        """))
    return str(tmp_path)


def test_python_callable_beside_the_suite(checks_module):
    ctx = make_ctx("please wait", trace=[{"tool": "search"}], reference_answer="wait")
    polite = run({"type": "python", "callable": "suite_checks:polite"}, ctx, checks_module)
    assert polite.verdict == "pass" and polite.hits == ["politeness"]
    session = run({"type": "python", "name": "searched", "callable": "suite_checks:used_search"},
                  ctx, checks_module)
    assert session.score == 1 and session.name == "searched"
    ratio = run({"type": "python", "callable": "suite_checks:length_ratio"}, ctx, checks_module)
    assert ratio.score == 1.0


def test_python_factory_with_args_uses_the_typed_api():
    ctx = make_ctx("The total is 99.6", reference_answer="100")
    result = run({"type": "python", "callable": "evaluators:within_tolerance", "args": [0.5]}, ctx)
    assert result.verdict == "pass"
    called = run({"type": "python", "callable": "evaluators:tool_called", "args": ["x"]}, ctx)
    assert called.verdict == "fail" and "no trace" in called.misses[0]


def test_python_evaluator_errors_are_isolated(checks_module):
    bug = run({"type": "python", "callable": "suite_checks:boom"}, make_ctx("x"), checks_module)
    assert bug.score == 0 and "evaluator bug" in bug.error
    bad_return = run({"type": "python", "callable": "suite_checks:shout"}, make_ctx("x"),
                     checks_module)
    assert "must return a Score" in bad_return.error


@pytest.mark.parametrize("spec, message", [
    ("no_such_module:fn", "No module named 'no_such_module'"),
    ("suite_checks:missing", "has no attribute 'missing'"),
    ("suite_checks", "must look like 'module:function'"),
])
def test_python_callable_that_cannot_be_imported_is_a_config_error(checks_module, spec, message):
    with pytest.raises(ConfigError) as err:
        run({"type": "python", "callable": spec}, make_ctx(), checks_module)
    assert message in str(err.value) and err.value.where == "suite.yaml:1"


def test_python_evaluator_from_an_in_memory_function():
    def exact(output, expected):
        return Score(float(output == expected), output == expected)
    evaluator = PythonEvaluator.from_function(
        exact, output_of=lambda ctx: ctx.candidate_answer.upper())
    ctx = make_ctx("paris", case_metadata={"expected": "PARIS"})
    result = asyncio.run(run_evaluator(evaluator, ctx))
    assert result.name == "exact" and result.score == 1.0
