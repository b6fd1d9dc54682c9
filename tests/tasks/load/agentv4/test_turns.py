"""A 4.x test's ``mode: conversation`` keys lowered into ``EvalCase.conversation``
(tasks/load/agentv4/turns.py), and what AgentV 4.42.4's validator refuses, named by line."""
from __future__ import annotations

import pytest

from agentv.providers.errors import ConfigError, ConfigErrors
from agentv.tasks.load.conversation import Conversation, aggregate, every_evaluator
from agentv.tasks.load.files import load_suite
from tests.tasks.load.agentv4.test_deviations4 import write


def test_turns_settings_and_assertions_load(tmp_path):
    suite = load_suite(write(tmp_path / "c.eval.yaml", """\
tests:
  - id: chat
    mode: conversation
    criteria: keeps context
    aggregation: min
    on_turn_failure: stop
    window_size: 2
    vars: {n: 15}
    input:
      - role: system
        content: Be brief.
    turns:
      - input: What is {{ n }}% of 200?
        assertions:
          - Says 30
          - Shows the steps
          - type: contains
            value: "30"
      - input: {role: user, content: again}
      - input: third
        expected_output: thirty
    assertions:
      - type: contains
        value: assistant
"""))
    case = suite.cases[0]
    talk = case.conversation
    assert isinstance(talk, Conversation)
    assert (talk.aggregation, talk.on_turn_failure, talk.window_size) == ("min", "stop", 2)
    first, second, third = talk.turns
    assert first.text == "What is 15% of 200?"
    assert [(e.label, e.type, e.weight) for e in first.evaluators] == [
        ("turn-rubrics", "llm-grader", 1.0), ("contains-30", "contains", 1.0)]
    rubrics = first.evaluators[0].inner.rubrics
    assert [(r.id, r.expected_outcome) for r in rubrics] == [
        ("criterion-1", "Says 30"), ("criterion-2", "Shows the steps")]
    assert second.text == '{"role":"user","content":"again"}' and second.evaluators == []
    assert third.expected == "thirty" and third.implicit and len(third.evaluators) == 1
    assert [e.label for e in case.evaluators] == ["contains-assistant"]  # no implicit grader
    assert len(every_evaluator(case)) == 4


def test_a_conversation_without_assertions_has_no_evaluators_of_its_own(tmp_path):
    suite = load_suite(write(tmp_path / "c.eval.yaml", "tests:\n  - id: a\n    input: hi\n"
                             "    mode: conversation\n    turns:\n      - input: q\n"))
    case = suite.cases[0]  # turns alone make it a test (AgentV: criteria, …, or turns)
    assert case.evaluators == [] and case.conversation.aggregation == "mean"
    assert case.conversation.on_turn_failure == "continue"


@pytest.mark.parametrize("body, where, message", [
    ("  - id: a\n    input: hi\n    criteria: c\n    turns:\n      - input: q\n", ":5: turns",
     "'turns' requires mode: conversation"),
    ("  - id: a\n    input: hi\n    criteria: c\n    window_size: 2\n", ":5: window_size",
     "'window_size' requires mode: conversation"),
    ("  - id: a\n    input: hi\n    mode: chat\n    turns:\n      - input: q\n", ":4: mode",
     "must be 'conversation'"),
    ("  - id: a\n    input: hi\n    mode: conversation\n    expected_output: x\n    turns:\n"
     "      - input: q\n", ":5: expected_output", "not allowed with mode: conversation"),
    ("  - id: a\n    input: hi\n    mode: conversation\n    aggregation: median\n    turns:\n"
     "      - input: q\n", ":5: aggregation", "must be one of mean, min, max"),
    ("  - id: a\n    input: hi\n    mode: conversation\n    on_turn_failure: halt\n"
     "    turns:\n      - input: q\n", ":5: on_turn_failure", "must be one of continue, stop"),
    ("  - id: a\n    input: hi\n    mode: conversation\n    window_size: 0\n    turns:\n"
     "      - input: q\n", ":5: window_size", "must be a whole number of 1 or more"),
    ("  - id: a\n    input: hi\n    mode: conversation\n    turns:\n      - input: '  '\n",
     ":6: input", "each turn needs a non-empty input"),
    ("  - id: a\n    input: hi\n    mode: conversation\n    turns:\n      - q\n", ":6: turns",
     "a turn must be a mapping"),
    ("  - id: a\n    input: hi\n    mode: conversation\n    turns:\n      - input: q\n"
     "        assertions:\n          - type: nope\n", ":8: type", "unknown assertion type"),
])
def test_what_agentv4_refuses_is_an_error_naming_the_line(tmp_path, body, where, message):
    path = write(tmp_path / "bad.eval.yaml", "tests:\n" + body)
    with pytest.raises((ConfigError, ConfigErrors)) as err:
        load_suite(path)
    assert f"{path}{where}: {message}" in err.value.render()


def test_aggregation_is_agentv4s():
    assert aggregate([1.0, 0.0, 0.5], "mean") == 0.5
    assert aggregate([1.0, 0.0, 0.5], "min") == 0.0
    assert aggregate([1.0, 0.0, 0.5], "max") == 1.0
    assert aggregate([], "mean") == 1.0

