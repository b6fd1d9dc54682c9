"""The registry: every type loads, bad input is a ConfigError naming file:line and field."""
from __future__ import annotations

import textwrap

import pytest

from agentv.evaluators.base import Evaluator, EvaluatorResult
from agentv.evaluators.registry import EVALUATORS, build_evaluator, evaluator_class, known_types
from agentv.providers.base import ConfigError
from agentv.tasks.load.files import load_suite


@pytest.mark.parametrize("kind", sorted(EVALUATORS))
def test_every_registered_type_is_an_evaluator_class(kind):
    cls = evaluator_class(kind)
    assert issubclass(cls, Evaluator)
    assert cls.kind == kind or kind in ("code",)


def test_unknown_type_lists_the_known_ones():
    with pytest.raises(ConfigError) as err:
        build_evaluator({"type": "semantic_similarity"}, where="s.yaml:3")
    assert err.value.where == "s.yaml:3" and err.value.field == "type"
    for kind in ("rubric", "composite", "tool_trajectory", "field_accuracy", "python"):
        assert kind in str(err.value)
    assert known_types() == sorted(EVALUATORS)


def test_negative_weight_is_rejected():
    with pytest.raises(ConfigError) as err:
        build_evaluator({"type": "contains", "value": "x", "weight": -1}, where="s.yaml:9")
    assert err.value.field == "weight" and "must be >= 0, got -1" in str(err.value)


def test_unknown_keys_warn_also_inside_members():
    warnings: list[str] = []
    build_evaluator({"type": "composite", "colour": "red", "evaluators": [
        {"type": "contains", "value": "x", "shade": 1}],
        "aggregator": {"type": "weighted_average", "tint": 2}}, where="s.yaml:2",
        warn=warnings.append)
    assert len(warnings) == 3
    assert any("shade" in w for w in warnings) and any("tint" in w for w in warnings)


def test_result_record_nests_member_results():
    child = EvaluatorResult(name="c", type="contains", score=1)
    parent = EvaluatorResult(name="p", type="composite", score=1, children=[child])
    assert parent.to_record()["evaluator_results"][0]["name"] == "c"
    assert "evaluator_results" not in child.to_record()


def write_suite(tmp_path, body: str):
    path = tmp_path / "suite.yaml"
    path.write_text("$schema: agentv-eval-v2\n" + textwrap.dedent(body))
    return path


def test_nested_member_error_names_the_members_own_line(tmp_path):
    path = write_suite(tmp_path, """\
        evalcases:
          - id: c1
            input_messages: [{role: user, content: hi}]
            execution:
              evaluators:
                - name: gate
                  type: composite
                  evaluators:
                    - type: contains
                      value: hi
                    - type: tool_trajectory
                      mode: sideways
                      expected: [{tool: x}]
        """)
    with pytest.raises(ConfigError) as err:
        load_suite(path)
    assert err.value.where == f"{path}:12" and err.value.field == "mode"


def test_python_callable_import_failure_in_a_suite(tmp_path):
    path = write_suite(tmp_path, """\
        evalcases:
          - id: c1
            input_messages: [{role: user, content: hi}]
            execution:
              evaluators:
                - type: python
                  callable: not_a_module_anywhere:check
        """)
    with pytest.raises(ConfigError) as err:
        load_suite(path)
    assert err.value.where == f"{path}:7" and "cannot import" in str(err.value)
