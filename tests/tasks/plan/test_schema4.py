"""``agentv-eval-4.schema.json`` (tasks.plan.schema4): every AgentV 4.42.4 example suite
(shared/agentv4-examples) is valid against it; wrong shapes are not."""
from __future__ import annotations

import jsonschema
import pytest
import yaml

from agentv.tasks.plan.schema import _model_schema
from agentv.tasks.plan.schema4 import eval4_schema
from tests.conftest import SHARED

EXAMPLES = SHARED / "agentv4-examples" / "v4.42.4" / "examples"


def suites() -> list:
    if not EXAMPLES.is_dir():
        return []
    return sorted(p for p in EXAMPLES.rglob("*.y*ml")
                  if p.read_text(encoding="utf-8").startswith("tests:")
                  or "\ntests:" in p.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def validator():
    schema = eval4_schema(_model_schema)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="shared/agentv4-examples absent")
def test_every_agentv4_example_suite_is_valid(validator):
    files = suites()
    assert len(files) >= 108
    invalid = {str(p): next(iter(validator.iter_errors(yaml.safe_load(p.read_text()))), None)
               for p in files}
    assert {p: e.message for p, e in invalid.items() if e is not None} == {}


@pytest.mark.parametrize("doc", [
    {"description": "no tests"},
    {"tests": [{"id": "a", "assertions": [{"type": "contains-any", "value": "not a list"}]}]},
    {"tests": [{"id": "a", "assertions": [{"type": "regex", "value": "x", "weight": -1}]}]},
    {"tests": [{"id": "a", "execution": {"threshold": 2}}]},
])
def test_wrong_shapes_are_invalid(validator, doc):
    assert not validator.is_valid(doc)


def test_the_schemas_keys_are_the_loaders():
    """One key set: the JSON Schema names every key the 4.x loader takes (suite, test, both
    `execution` blocks) — a key added to the loader is in the schema."""
    from agentv.tasks.load.agentv4.cases import TEST_EXECUTION_KEYS, TEST_KEYS
    from agentv.tasks.load.agentv4.suite import EXECUTION_KEYS, SUITE_KEYS
    schema = eval4_schema(_model_schema)
    test = schema["properties"]["tests"]["anyOf"][1]["items"]["anyOf"][0]["properties"]
    assert set(SUITE_KEYS) <= set(schema["properties"])
    assert set(EXECUTION_KEYS) <= set(schema["properties"]["execution"]["properties"])
    assert set(TEST_KEYS) <= set(test)
    assert set(TEST_EXECUTION_KEYS) <= set(test["execution"]["properties"])
