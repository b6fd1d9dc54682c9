"""The answer's form, one class each for both generations: ``regex`` (a JavaScript pattern:
evaluators/js_regex.py — JavaScript's ``$``, ``.``, ``\\d``/``\\w``/``\\b``, flags
``imsuygd``) and ``is-json`` (v2: ``is_json``; ``JSON.parse`` accepts the answer: ``NaN`` and
``Infinity`` are not JSON). 4.x records AgentV 4.42.4's assertion, v2 a scored check
(``evaluators.text_assertions.TextCheck``).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, Field, ValidationInfo, field_validator, model_validator

from agentv.evaluators import functions as fn
from agentv.evaluators.base import EvalContext, EvaluatorResult, agentv4_rules
from agentv.evaluators.js_regex import JsRegexError, compile_js
from agentv.evaluators.js_regex import test as js_test
from agentv.evaluators.score import Score, passed_score
from agentv.evaluators.text_assertions import TextCheck


class Regex(TextCheck):
    """The answer matches the JavaScript pattern `pattern` (4.x: `value`) with `flags` (v2's
    `ignore_case` / `multiline`: `i` / `m`).

    As ``new RegExp(pattern, flags).test(answer)`` (evaluators.js_regex). A pattern JavaScript
    rejects is refused when a v2 file loads; a 4.x one fails when graded, as in AgentV (the
    file still loads)."""
    kind = "regex"
    pattern: str = Field(validation_alias=AliasChoices("pattern", "value"))
    flags: str = ""
    ignore_case: bool = False
    multiline: bool = False

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, pattern: str, info: Any) -> str:  # info: ValidationInfo
        if not agentv4_rules(info):
            try:
                compile_js(pattern)
            except JsRegexError as err:
                raise ValueError(f"invalid regular expression: {err}") from None
        return pattern

    @model_validator(mode="after")
    def _v2_flags(self) -> "Regex":
        if not self._agentv4:
            self.flags += "i" * self.ignore_case + "m" * self.multiline
        return self

    def agentv4_value(self) -> None:
        return None

    def checked(self, ctx: EvalContext) -> Score | None:
        return self.found(ctx.candidate_answer)

    async def asserted(self, ctx: EvalContext) -> EvaluatorResult:
        passed = js_test(self.pattern, self.flags, ctx.candidate_answer)
        shown = f"/{self.pattern}/{self.flags}" + (f" (flags: {self.flags})" if self.flags
                                                   else "")
        return self.outcome(passed, f"Output matches pattern {shown}" if passed
                            else f"Output does not match pattern {shown}")

    def found(self, answer: str) -> Score:
        compiled = compile_js(self.pattern, self.flags)
        match = compiled.match(answer) if "y" in self.flags else compiled.search(answer)
        return passed_score(match is not None, f"matched {match.group(0)!r}" if match
                            else f"no match for /{self.pattern}/")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class IsJson(TextCheck):
    """The answer is JSON (v2 `is_json`: fenced JSON too, valid against `schema` when
    given)."""
    kind = "is_json"  # 4.x: `is-json`
    schema_: dict[str, Any] | str | None = Field(default=None, alias="schema")

    @model_validator(mode="after")
    def _load_schema(self, info: ValidationInfo) -> "IsJson":
        if isinstance(self.schema_, str):
            self.schema_ = json.loads(_schema_file(self, info).read_text(encoding="utf-8"))
        if self.schema_ is not None:
            import jsonschema

            try:
                jsonschema.validators.validator_for(self.schema_).check_schema(self.schema_)
            except jsonschema.SchemaError as err:
                raise ValueError(f"invalid JSON schema: {err.message}") from None
        return self

    def agentv4_value(self) -> None:
        return None

    def checked(self, ctx: EvalContext) -> Score | None:
        schema = self.schema_ if isinstance(self.schema_, dict) else None
        return fn.is_json(schema)(ctx.candidate_answer, None)

    async def asserted(self, ctx: EvalContext) -> EvaluatorResult:
        try:
            json.loads(ctx.candidate_answer, parse_constant=_no_constant)
            passed = True
        except ValueError:
            passed = False
        return self.outcome(passed, "Output is valid JSON" if passed
                            else "Output is not valid JSON")


def _schema_file(check: IsJson, info: ValidationInfo) -> Path:
    """The schema file named, checked against the suite's boundary before it is read."""
    path = Path(check.base_dir) / str(check.schema_)
    context = info.context or {}
    if context.get("contain") is not None:
        path = context["contain"](path, context.get("where") or "", "schema", check.schema_)
    if not path.is_file():
        raise ValueError(f"schema file not found: {path}")
    return path
