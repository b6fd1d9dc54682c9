"""The JSON Schema of AgentV 4.x eval files (``agentv schema`` writes it beside the v2 ones as
``agentv-eval-4.schema.json``), from the same key sets and assertion models the loader uses
(``tasks.load.agentv4``): suite keys, test keys, and one branch per assertion type with that
evaluator's fields plus ``name``, ``weight``, ``required``, ``min_score`` and ``negate``."""
from __future__ import annotations

from typing import Any, Callable

from agentv.providers.lazyload import load_symbol

SCHEMA_ID = "agentv-eval-4"
TEXT = {"type": ["string", "number"]}
GATES = {"name": {"type": "string"}, "weight": {"type": "number", "minimum": 0},
         "required": {"type": ["boolean", "number"]},
         "min_score": {"type": "number", "minimum": 0, "maximum": 1},
         "negate": {"type": "boolean"}}


def assertion_schema(model_schema: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    """``model_schema``: ``tasks.plan.schema``'s model → JSON Schema (with every alias)."""
    from agentv.tasks.load.agentv4.assertions import COMPOSITES, TYPES
    branches = []
    for kind, spec in TYPES.items():
        try:
            body = model_schema(load_symbol(spec))
        except Exception:  # noqa: BLE001 - a model pydantic cannot describe stays open
            continue
        body.pop("allOf", None)
        for key in ("base_dir", "type", "name", "weight"):
            body["properties"].pop(key, None)
        kinds = [kind, kind.replace("-", "_")]
        branches.append({"if": {"properties": {"type": {"enum": kinds}}, "required": ["type"]},
                         "then": body})
    types = sorted({*TYPES, *COMPOSITES} | {k.replace("-", "_") for k in TYPES})
    one = {"type": "object", "required": ["type"],
           "properties": {"type": {"anyOf": [{"enum": types}, {"type": "string"}]}, **GATES,
                          "assertions": {"type": "array"}, "aggregator": {"type": "object"}},
           "allOf": branches}
    return {"anyOf": [{"type": "string"}, one]}


def conversation_schema(messages: dict[str, Any], assertions: dict[str, Any]
                        ) -> dict[str, Any]:
    """A test's ``mode: conversation`` keys (tasks.load.agentv4.turns)."""
    from agentv.tasks.load.conversation import AGGREGATIONS, ON_TURN_FAILURE
    turn = {"type": "object", "required": ["input"],
            "properties": {"input": messages, "expected_output": messages,
                           "assertions": assertions}}
    return {"mode": {"enum": ["conversation"]},
            "turns": {"type": "array", "minItems": 1, "items": turn},
            "aggregation": {"enum": list(AGGREGATIONS)},
            "on_turn_failure": {"enum": list(ON_TURN_FAILURE)},
            "window_size": {"type": "integer", "minimum": 1}}


def eval4_schema(model_schema: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    from agentv.tasks.load.messages import ROLES
    assertions = {"type": "array", "items": assertion_schema(model_schema)}
    block = {"type": "object", "properties": {"type": {"enum": ["text", "file"]},
                                              "value": TEXT}}
    message = {"type": "object", "required": ["role"],
               "properties": {"role": {"enum": list(ROLES)},
                              "content": {"anyOf": [TEXT, {"type": "array", "items": block},
                                                    {"type": "object"}]}}}
    messages = {"anyOf": [TEXT, {"type": "object"}, {"type": "array", "items": message}]}
    threshold = {"type": "number", "minimum": 0, "maximum": 1}
    test: dict[str, Any]
    execution: dict[str, Any]
    test = {"type": "object", "required": ["id"],
            "properties": {"id": TEXT, "input": messages, "input_files": {"type": "array",
                                                                       "items": TEXT},
                           "criteria": TEXT, "expected_output": messages,
                           "assertions": assertions, "rubrics": {"type": "array"},
                           "vars": {"type": "object"}, "metadata": {"type": "object"},
                           "conversation_id": TEXT, **conversation_schema(messages, assertions),
                           "execution": {"type": "object", "properties": {
                               "target": {"type": "string"}, "threshold": threshold,
                               "skip_defaults": {"type": "boolean"}}}}}
    execution = {"type": "object", "properties": {
        "target": {"type": "string"}, "threshold": threshold,
        "fail_on_error": {"type": "boolean"}, "workers": {"type": "integer", "minimum": 1}}}
    covered(test["properties"], "cases:TEST_KEYS")
    covered(test["properties"]["execution"]["properties"], "cases:TEST_EXECUTION_KEYS")
    covered(execution["properties"], "suite:EXECUTION_KEYS")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
            "title": "AgentV 4.x eval file", "type": "object", "required": ["tests"],
            "properties": covered({
                "name": {"type": "string"}, "description": TEXT, "version": TEXT,
                "tags": {"type": "array", "items": {"type": "string"}},
                "metadata": {"type": "object"}, "execution": execution,
                "input": messages, "input_files": {"type": "array", "items": TEXT},
                "assertions": assertions,
                "tests": {"anyOf": [{"type": "string"}, {"type": "array",
                                                         "items": {"anyOf": [test, {
                                                             "type": "string",
                                                             "pattern": "^file://"}]}}]}},
                "suite:SUITE_KEYS")}


def covered(properties: dict[str, Any], loader_keys: str) -> dict[str, Any]:
    """``properties`` with every key the 4.x loader takes (``module:NAME`` under
    tasks.load.agentv4): a key given no shape here is any value — the schema's key set is
    the loader's, never a second list."""
    for key in sorted(load_symbol(f"agentv.tasks.load.agentv4.{loader_keys}")):
        properties.setdefault(key, {})
    return properties
