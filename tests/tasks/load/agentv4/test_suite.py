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
    ("tests:\n  - id: a\n    mode: conversation\n    turns: []\n", ":3: mode",
     "conversation mode"),
    ("tests: ./missing.yaml\n", ":1: tests", "tests file not found"),
    ("tests:\n  - id: a\n    input: a\n", ":2: criteria",
     "a test needs criteria, expected_output or assertions"),
    ("tests:\n  - id: a\n    input: a\n    assertions:\n      - type: regex\n"
     "        value: '('\n", ":5: value", "invalid regular expression"),
])
def test_errors_name_file_line_and_field(tmp_path, body, where, message):
    path = write(tmp_path / "bad.eval.yaml", body)
    with pytest.raises(ConfigError) as err:
        load_suite(path)
    assert f"{path}{where}: {message}" in err.value.render().removeprefix("error: ")
