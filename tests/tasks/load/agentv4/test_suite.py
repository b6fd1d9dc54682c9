"""AgentV 4.x eval files lowered into the plan's EvalSuite/EvalCase (tasks.load.agentv4)."""
from __future__ import annotations

from pathlib import Path

import pytest

from agentv.providers.errors import ConfigError
from agentv.tasks.load.files import load_suite


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def labels(case) -> list[tuple[str, str, float]]:
    return [(e.label, e.type, e.weight) for e in case.evaluators]


def test_tests_input_defaults_and_assertions(tmp_path, monkeypatch):
    monkeypatch.setenv("GREETING", "Hello")
    suite = load_suite(write(tmp_path / "demo.eval.yaml", """\
description: demo
execution:
  target: agent
input:
  - role: system
    content: Be brief.
assertions:
  - type: icontains
    value: "${{ GREETING }}"
tests:
  - id: one
    input: Say hi
    assertions:
      - Greets the user
      - type: contains-any
        value: [a, b]
      - Is polite
      - type: regex
        value: "^H"
        weight: 2
        required: true
  - id: two
    criteria: answers
    input:
      - role: user
        content: hi
    execution:
      skip_defaults: true
      threshold: 0.5
  - id: three
    vars: {city: Paris}
    input: Tell me about {{city}}
    expected_output: "{{city}} is a city"
"""))
    one, two, three = suite.cases
    assert suite.format == "agentv-4" and suite.target == "agent" and suite.dataset == "demo"
    assert [m.role for m in one.input_messages] == ["system", "user"]
    assert labels(one) == [("rubrics", "llm-grader", 2.0), ("contains-any-2", "contains-any", 1.0),
                           ("regex-^H", "regex", 2.0), ("icontains-Hello", "icontains", 1.0)]
    assert one.evaluators[2].required is True
    assert [m.role for m in two.input_messages] == ["user"]
    assert [(e.label, e.implicit) for e in two.evaluators] == [("llm-grader", True)]
    assert two.threshold == 0.5 and two.expected_outcome == "answers"
    assert three.input_messages[-1].segments[0].text == "Tell me about Paris"
    assert three.expected_messages[0].segments[0].text == "Paris is a city"
    assert one.category == three.category


def test_tests_from_a_yaml_list_a_jsonl_file_and_a_folder(tmp_path):
    write(tmp_path / "cases.yaml", "- id: y1\n  input: a\n  criteria: b\n")
    write(tmp_path / "cases.jsonl", '{"id": "j1", "input": "a", "criteria": "b"}\n')
    write(tmp_path / "dir" / "c1" / "case.yaml", "input: a\ncriteria: b\n")
    for name, ref, ids in (("y", "./cases.yaml", ["y1"]), ("j", "./cases.jsonl", ["j1"]),
                           ("d", "./dir", ["c1"])):
        suite = load_suite(write(tmp_path / f"{name}.eval.yaml", f"tests: {ref}\n"))
        assert [c.id for c in suite.cases] == ids


@pytest.mark.parametrize("body, where, message", [
    ("tests:\n  - input: a\n    criteria: b\n", ":2: id", "required field missing"),
    ("tests:\n  - id: a\n    input: a\n    assertions:\n      - type: nope\n", ":5: type",
     "unknown assertion type 'nope'"),
    ("tests:\n  - id: a\n    input: a\n    criteria: b\n    execution:\n      threshold: 2\n",
     ":6: threshold", "must be a number from 0 to 1"),
    ("tests:\n  - id: a\n    input: a\n    mode: conversation\n    turns: []\n", ":4: mode",
     "mode: conversation requires a non-empty 'turns' list"),
    ("tests: ./missing.yaml\n", ":1: tests", "tests file not found"),
])
def test_errors_name_file_line_and_field(tmp_path, body, where, message):
    path = write(tmp_path / "bad.eval.yaml", body)
    with pytest.raises(ConfigError) as err:
        load_suite(path)
    assert f"{path}{where}: {message}" in err.value.render().removeprefix("error: ")


def test_what_agentv4_skips_or_grades_later_loads(tmp_path):
    """AgentV 4.42.4 skips (with a message) a test with no criteria, expected_output or
    assertions of its own, keeps only a list's strings and drops a field-accuracy field
    without a valid match; a regex it cannot compile fails when graded, not when loaded.
    (An assertion it would drop whole is refused: docs/formats.md's deviations.)"""
    suite = load_suite(write(tmp_path / "skips.eval.yaml", """\
assertions:
  - type: contains
    value: a
tests:
  - id: bare
    input: a
  - id: kept
    input: a
    assertions:
      - type: contains-all
        value: [1, b]
      - type: regex
        value: "("
      - type: field-accuracy
        aggregation: nonsense
        fields:
          - path: a
            match: fuzzy
          - path: b
            match: exact
"""))
    assert [c.id for c in suite.cases] == ["kept"]
    assert labels(suite.cases[0]) == [("contains-all-2", "contains-all", 1.0),
                                      ("regex-(", "regex", 1.0),
                                      ("field-accuracy", "field-accuracy", 1.0),
                                      ("contains-a", "contains", 1.0)]
    assert suite.cases[0].evaluators[0].inner.value == ["b"]
    fields = suite.cases[0].evaluators[2].inner
    assert [f.path for f in fields.fields] == ["b"] and fields.aggregation == "weighted_average"


def test_assertion_templates_are_included(tmp_path, monkeypatch):
    """``- include: NAME`` is .agentv/templates/NAME.yaml's assertions (up the tree), a path
    is a file from the eval's folder; templates nest (AgentV 4.42.4's expandGraderEntries)."""
    monkeypatch.setenv("WORD", "hello")
    write(tmp_path / ".agentv" / "templates" / "greets.yaml",
          "assertions:\n  - type: contains\n    value: ${{ WORD }}\n  - include: ./more.yaml\n")
    write(tmp_path / ".agentv" / "templates" / "more.yaml",
          "assertions:\n  - type: is-json\n")
    write(tmp_path / "local.yaml", "assertions:\n  - type: equals\n    value: x\n")
    suite = load_suite(write(tmp_path / "evals" / "t.eval.yaml", """\
tests:
  - id: a
    input: a
    assertions:
      - include: greets
      - include: ../local.yaml
"""))
    assert labels(suite.cases[0]) == [("contains-hello", "contains", 1.0),
                                      ("is-json", "is-json", 1.0), ("equals-x", "equals", 1.0)]


def test_a_missing_template_names_the_include(tmp_path):
    path = write(tmp_path / "t.eval.yaml",
                 "tests:\n  - id: a\n    input: a\n    assertions:\n      - include: nowhere\n")
    with pytest.raises(ConfigError) as err:
        load_suite(path)
    assert f"{path}:5: include: assertion template not found: nowhere" in err.value.render()


def test_assert_set_loads_and_scores_zero_as_agentv4_does(tmp_path):
    """AgentV 4.42.4's registry has no ``assert-set``: it keeps the file, scores it 0."""
    import asyncio

    from agentv.evaluators.base import EvalContext
    warnings: list[str] = []
    suite = load_suite(write(tmp_path / "s.eval.yaml", """\
tests:
  - id: a
    input: a
    assertions:
      - type: assert-set
        assertions:
          - type: contains
            value: a
"""), warn=warnings.append)
    gated = suite.cases[0].evaluators[0]
    result = asyncio.run(gated.evaluate(EvalContext(eval_id="a", question="a",
                                                    candidate_answer="a")))
    assert (result.name, result.type, result.score, result.verdict) == (
        "assert-set", "assert-set", 0.0, "fail")
    assert any("scores 0" in w for w in warnings)
