"""Deterministic checks on the answer (seed 002): ``exact_match``, ``contains``,
``is_json``, ``json_subset``, ``within_tolerance``.

A missing ``value`` means the case's expected answer (``case_expected``). Each check is
the typed function of ``evaluators.functions`` applied to the candidate answer.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationInfo, model_validator

from agentv.evaluators import functions as fn
from agentv.evaluators.base import EvalContext
from agentv.evaluators.jsonutil import MISSING, parse_json
from agentv.evaluators.score import Score, passed_score
from agentv.evaluators.scored import NO_EXPECTED, ScoreEvaluator


class ExactMatch(ScoreEvaluator):
    """The answer equals `value` (default: the case's expected answer)."""
    kind = "exact_match"
    value: Any = None
    case_sensitive: bool = True
    trim: bool = True

    async def score(self, ctx: EvalContext) -> Score:
        expected = self.expected(ctx, self.value)
        if expected is MISSING:
            return passed_score(False, NO_EXPECTED)
        if isinstance(expected, (dict, list)):
            try:
                return fn.exact_match(parse_json(ctx.candidate_answer), expected)
            except ValueError:
                return passed_score(False, "answer is not JSON; expected a JSON value")
        return fn.exact_match(self._norm(ctx.candidate_answer), self._norm(expected))

    def _norm(self, value: Any) -> str:
        text = value if isinstance(value, str) else json.dumps(value)
        text = text.strip() if self.trim else text
        return text if self.case_sensitive else text.casefold()


class Contains(ScoreEvaluator):
    """The answer contains `value` (a list: all must appear)."""
    kind = "contains"
    value: str | list[str] | None = None
    case_sensitive: bool = True

    async def score(self, ctx: EvalContext) -> Score:
        expected = self.expected(ctx, self.value)
        if expected is MISSING:
            return passed_score(False, NO_EXPECTED)
        needles = expected if isinstance(expected, list) else [expected]
        answer = self._norm(ctx.candidate_answer)
        missing = [n for n in needles if self._norm(n) not in answer]
        reason = (f"missing: {', '.join(repr(str(n)) for n in missing)}" if missing
                  else f"found {len(needles)} of {len(needles)}")
        return Score(value=1 - len(missing) / len(needles), passed=not missing, reason=reason)

    def _norm(self, value: Any) -> str:
        text = str(value)
        return text if self.case_sensitive else text.casefold()


class IsJson(ScoreEvaluator):
    """The answer is JSON, valid against `schema` when given (inline or a JSON file beside the
    eval)."""
    kind = "is_json"
    schema_: dict[str, Any] | str | None = Field(default=None, alias="schema")

    @model_validator(mode="after")
    def _load_schema(self, info: ValidationInfo) -> "IsJson":
        if isinstance(self.schema_, str):
            path = Path(self.base_dir) / self.schema_
            context = info.context or {}
            if context.get("contain") is not None:  # the suite's boundary, before reading
                path = context["contain"](path, context.get("where") or "", "schema",
                                          self.schema_)
            if not path.is_file():
                raise ValueError(f"schema file not found: {path}")
            self.schema_ = json.loads(path.read_text(encoding="utf-8"))
        if self.schema_ is not None:
            import jsonschema

            try:
                jsonschema.validators.validator_for(self.schema_).check_schema(self.schema_)
            except jsonschema.SchemaError as err:
                raise ValueError(f"invalid JSON schema: {err.message}") from None
        return self

    async def score(self, ctx: EvalContext) -> Score:
        return fn.is_json(self.schema_ if isinstance(self.schema_, dict) else None)(
            ctx.candidate_answer, None)


class JsonSubset(ScoreEvaluator):
    """The answer's JSON contains `value` (nested mappings recurse)."""
    kind = "json_subset"
    value: Any = None

    async def score(self, ctx: EvalContext) -> Score:
        expected = self.expected(ctx, self.value)
        if expected is MISSING:
            return passed_score(False, NO_EXPECTED)
        try:
            expected = parse_json(expected)
        except ValueError:
            return passed_score(False, "the expected value is not JSON")
        return fn.json_subset(ctx.candidate_answer, expected)


class WithinTolerance(ScoreEvaluator):
    """The answer's last number is within `tolerance` of `value` (`relative`: a fraction of it)."""
    kind = "within_tolerance"
    value: float | str | None = None
    tolerance: float = Field(ge=0)
    relative: bool = False

    async def score(self, ctx: EvalContext) -> Score:
        expected = self.expected(ctx, self.value)
        if expected is MISSING:
            return passed_score(False, NO_EXPECTED)
        return fn.within_tolerance(self.tolerance, relative=self.relative)(
            ctx.candidate_answer, expected)
