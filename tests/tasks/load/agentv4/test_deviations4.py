"""The deliberate deviations from AgentV 4.42.4 (docs/formats.md's table), one test each,
and the table naming only tests that exist."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentv.providers.errors import ConfigError
from agentv.tasks.load.files import load_suite

ROOT = Path(__file__).resolve().parents[4]


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_tests_own_execution_target_is_used(tmp_path):
    """4.42.4 ignores it (every test runs on the suite's target); its schema documents it."""
    suite = load_suite(write(tmp_path / "s.eval.yaml", """\
execution:
  target: suite-agent
tests:
  - id: a
    input: a
    criteria: x
    execution:
      target: other-agent
"""))
    assert suite.cases[0].target == "other-agent"


def test_an_unknown_assertion_type_is_refused_with_a_suggestion(tmp_path):
    """4.42.4 scores a typo'd type 0 in every test; agentv names it before running."""
    path = write(tmp_path / "s.eval.yaml", "tests:\n  - id: a\n    input: a\n    assertions:\n"
                 "      - type: containz\n        value: a\n")
    with pytest.raises(ConfigError) as err:
        load_suite(path)
    assert "unknown assertion type 'containz' (did you mean 'contains'?)" in err.value.render()


def test_the_deviations_table_names_existing_tests():
    text = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    table = text[text.index("Deliberate deviations from AgentV 4.42.4"):]
    rows = [line for line in table.splitlines()[2:] if line.startswith("|")][2:]
    assert rows
    for row in rows:
        for test in re.findall(r"`(tests/[^`]+\.py)`", row):
            assert (ROOT / test).is_file(), test


def test_field_accuracy_date_match_reads_only_dates():
    """4.42.4's ``new Date("INV-1")`` is 2001-01-01, so two non-dates "match"; agentv fails
    the field."""
    import asyncio
    import json

    from agentv.evaluators.base import EvalContext
    from agentv.evaluators.fields import FieldAccuracy
    evaluator = FieldAccuracy(fields=[{"path": "invoice", "match": "date"},
                                      {"path": "day", "match": "date"}])
    ctx = EvalContext(eval_id="t", question="q",
                      candidate_answer=json.dumps({"invoice": "INV-1", "day": "2025-01-15"}),
                      expected_messages=[{"role": "assistant", "content": {
                          "invoice": "INV-1", "day": "15-Jan-2025"}}])
    assert asyncio.run(evaluator.evaluate(ctx)).score == 0.5


@pytest.mark.parametrize("assertion", [
    "type: equals\n        value: ''", "type: contains-any\n        value: []",
    "type: contains\n        value: 42", "type: token-usage", "type: execution-metrics",
    "type: latency", "type: cost\n        budget: -1",
    "type: field-accuracy\n        fields: [{path: a}]",
])
def test_an_assertion_agentv4_would_drop_whole_is_refused(tmp_path, assertion):
    """4.42.4 drops it with a warning and scores the test on the rest; agentv names it."""
    path = write(tmp_path / "s.eval.yaml", "tests:\n  - id: a\n    input: a\n    assertions:\n"
                 f"      - {assertion}\n")
    with pytest.raises(ConfigError) as err:
        load_suite(path)
    assert f"{path}:5:" in err.value.render()


def test_a_literal_model_name_in_targets_is_used(tmp_path):
    """4.42.4 reads an LLM target's `model` and `api_key` only from `${{ VAR }}`: a literal
    model fails every test of the run; agentv uses the name as written."""
    from agentv.tasks.load.targets import load_targets
    path = write(tmp_path / "targets.yaml", "targets:\n  - name: judge\n    provider: openai\n"
                 "    base_url: http://127.0.0.1:9/v1\n    api_key: ${{ JUDGE_KEY }}\n"
                 "    model: gpt-4o-mini\n")
    target = load_targets(path, lambda _w: None).resolve("judge", {"JUDGE_KEY": "sk-test"})
    assert target.settings["model"] == "gpt-4o-mini"


def test_a_composite_member_without_a_name_is_refused(tmp_path):
    """4.42.4 skips it with a warning ("invalid name/type"): the composite is scored on the
    rest, silently changing the score; agentv names the line."""
    path = write(tmp_path / "s.eval.yaml", """\
tests:
  - id: a
    input: a
    assertions:
      - type: composite
        name: gate
        assertions:
          - type: contains
            value: Rome
          - type: contains
            value: Paris
            name: m1
        aggregator:
          type: weighted_average
""")
    with pytest.raises(ConfigError) as err:
        load_suite(path)
    assert "s.eval.yaml:5: assertions: a composite member needs a 'name'" in err.value.render()
