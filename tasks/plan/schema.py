"""``agentv schema``: JSON Schemas (draft 2020-12) for eval, targets and config files, built
from the same models ``validate`` and the run use (provider settings, evaluators, config).

Editors pick them up with a first line such as
``# yaml-language-server: $schema=.agentv/schemas/agentv-eval-v2.schema.json``.
A value written as ``${{ VAR }}`` is accepted wherever a setting is typed (it is checked
once filled in).
"""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, BaseModel

from agentv.tasks.load.config_file import CONFIG_SCHEMA, ConfigModel
from agentv.tasks.load.files import EVAL_SCHEMA, MAX_TRIALS
from agentv.tasks.load.messages import ROLES
from agentv.tasks.load.targets import TARGETS_SCHEMA, TargetEntryModel

DRAFT = "https://json-schema.org/draft/2020-12/schema"
PLACEHOLDER = {"type": "string", "pattern": r"\$\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}"}
TRIALS = {"type": "integer", "minimum": 1, "maximum": MAX_TRIALS}
TEXT = {"type": ["string", "number"]}


def _model_schema(model: type[BaseModel], placeholders: bool = False) -> dict[str, Any]:
    """The model's schema with a property for every alias spelling."""
    schema = model.model_json_schema(mode="validation")
    defs = schema.pop("$defs", {})
    props: dict[str, Any] = {}
    required: list[dict[str, Any]] = []
    for name, info in model.model_fields.items():
        prop: Any = schema.get("properties", {}).get(name) or next(
            (v for k, v in schema.get("properties", {}).items()
             if isinstance(info.validation_alias, AliasChoices)
             and k in info.validation_alias.choices), {})
        prop = _inline(prop, defs)
        if placeholders:
            prop = {"anyOf": [prop, PLACEHOLDER], **{k: prop[k] for k in ("description",)
                                                     if k in prop}}
        alias = info.validation_alias
        names = list(alias.choices) if isinstance(alias, AliasChoices) else [name]
        for spelled in names:
            props[str(spelled)] = prop
        if info.is_required():  # any one spelling
            required.append({"anyOf": [{"required": [str(n)]} for n in names]})
    out: dict[str, Any] = {"type": "object", "properties": props,
                           "additionalProperties": True}
    if required:
        out["allOf"] = required
    return out


_KEYWORDS = {"ge": "minimum", "le": "maximum", "gt": "exclusiveMinimum",
             "lt": "exclusiveMaximum"}


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """Resolve local ``$ref``s; pydantic's untranslated bounds (``ge`` on an annotated type)
    become JSON Schema keywords."""
    if isinstance(node, dict):
        if "$ref" in node and node["$ref"].startswith("#/$defs/"):
            return _inline(copy.deepcopy(defs[node["$ref"].split("/")[-1]]), defs)
        return {_KEYWORDS.get(k, k) if node.get("type") in ("integer", "number") else k:
                _inline(v, defs) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


def targets_schema() -> dict[str, Any]:
    from agentv.providers.registry import known_kinds, settings_model
    entry = _model_schema(TargetEntryModel)
    entry["allOf"] = entry.get("allOf", []) + [{"if": {"properties": {"provider": {"const": kind}},
                              "required": ["provider"]},
                       "then": _model_schema(settings_model(kind), placeholders=True)}
                      for kind in known_kinds()]
    return {"$schema": DRAFT, "$id": TARGETS_SCHEMA, "title": "agentv targets file",
            "type": "object", "required": ["targets"],
            "properties": {"$schema": {"const": TARGETS_SCHEMA},
                           "targets": {"type": "array", "items": entry}}}


def config_schema() -> dict[str, Any]:
    schema = _model_schema(ConfigModel)
    schema["properties"]["$schema"] = {"const": CONFIG_SCHEMA}
    return {"$schema": DRAFT, "$id": CONFIG_SCHEMA, "title": "agentv config file", **schema}


def _evaluator_schema() -> dict[str, Any]:
    from agentv.evaluators.registry import EVALUATORS, evaluator_class
    branches = []
    for kind in EVALUATORS:
        try:
            body = _model_schema(evaluator_class(kind))
        except Exception:  # noqa: BLE001 - a model pydantic cannot describe stays open
            continue
        body.pop("allOf", None)  # required keys: a member may take them from the case
        body["properties"].pop("base_dir", None)
        branches.append({"if": {"properties": {"type": {"const": kind}}, "required": ["type"]},
                         "then": body})
    return {"type": "object", "required": ["type"],
            "properties": {"type": {"type": "string"}, "name": {"type": "string"},
                           "weight": {"type": "number", "minimum": 0}},
            "allOf": branches}


def workspace_schema() -> dict[str, Any]:
    """``workspace:`` (template, repos, hooks, retention) of agent targets' cases."""
    from agentv.providers.agents.workspace_spec import WorkspaceSpec
    body = WorkspaceSpec.model_json_schema()
    body["properties"].pop("base_dir", None)
    return body


def eval_schema(sidecar: bool = False) -> dict[str, Any]:
    evaluator = _evaluator_schema()
    evaluators = {"anyOf": [{"type": "string"}, evaluator, {"type": "array", "items": evaluator}]}
    block = {"type": "object", "properties": {"type": {"enum": ["text", "file"]},
                                              "value": TEXT}}
    message = {"type": "object", "required": ["role"],
               "properties": {"role": {"enum": list(ROLES)},
                              "content": {"anyOf": [TEXT, {"type": "array", "items": block},
                                                    {"type": "object"}, {"type": "null"}]}}}
    messages = {"anyOf": [TEXT, {"type": "object"}, {"type": "array", "items": message}]}
    execution = {"type": "object", "properties": {"target": {"type": "string"},
                                                  "evaluators": evaluators, "trials": TRIALS}}
    case = {"type": "object", "required": ["id"],
            "properties": {"id": TEXT, "expected_outcome": TEXT, "outcome": TEXT,
                           "input_messages": messages, "input": messages,
                           "expected_messages": messages, "expected_output": messages,
                           "conversation_id": TEXT, "execution": execution,
                           "evaluators": evaluators, "rubrics": {"type": "array"},
                           "trials": TRIALS, "metadata": {"type": "object"},
                           "workspace": workspace_schema()}}
    schema: dict[str, Any] = {
        "$schema": DRAFT, "$id": EVAL_SCHEMA + ("-sidecar" if sidecar else ""),
        "title": "agentv eval file" + (" (JSONL sidecar)" if sidecar else ""),
        "type": "object",
        "properties": {"$schema": {"const": EVAL_SCHEMA}, "description": TEXT,
                       "dataset": TEXT, "target": {"type": "string"}, "execution": execution,
                       "trials": TRIALS, "evaluators": evaluators, "evaluator": evaluators,
                       "evalcases": {"type": "array", "items": case},
                       "metadata": {"type": "object"}, "workspace": workspace_schema()}}
    if not sidecar:
        schema["required"] = ["evalcases"]
    return schema


def all_schemas() -> dict[str, dict[str, Any]]:
    from agentv.tasks.plan.schema4 import SCHEMA_ID, eval4_schema
    return {f"{EVAL_SCHEMA}.schema.json": eval_schema(),
            f"{EVAL_SCHEMA}-sidecar.schema.json": eval_schema(sidecar=True),
            f"{SCHEMA_ID}.schema.json": eval4_schema(_model_schema),
            f"{TARGETS_SCHEMA}.schema.json": targets_schema(),
            f"{CONFIG_SCHEMA}.schema.json": config_schema()}


def write_schemas(out_dir: str | Path) -> list[Path]:
    from agentv.tasks.plan.outputs import check_dir_target
    check_dir_target(str(out_dir), "out_dir")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in all_schemas().items():
        path = out / name
        path.write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
        written.append(path)
    return written
