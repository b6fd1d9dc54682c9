"""AgentV 4.x's deterministic assertions on the answer text: ``contains``, ``icontains``,
``contains-any``, ``contains-all``, ``icontains-any``, ``icontains-all``, ``starts-with``,
``ends-with``, ``equals``, ``regex``, ``is-json``.

Scored exactly as AgentV 4.42.4 scores them (``graders/assertions.ts``): 1 or 0, verdict pass
or fail, one assertion whose text is AgentV's. ``contains`` and friends look for the literal
text (``icontains*`` lower-cased); ``starts-with``, ``ends-with`` and ``equals`` compare both
sides trimmed; ``regex`` is a JavaScript pattern with its `flags` (evaluators/js_regex.py:
JavaScript's ``$``, ``.``, ``\\d``/``\\w``/``\\b``, flags ``imsuygd``); ``is-json`` means
``JSON.parse`` accepts the answer (``NaN``/``Infinity`` are not JSON).
"""
from __future__ import annotations

import json
from typing import Any

from pydantic import Field, field_validator

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult
from agentv.evaluators.js_regex import test as js_test


def text(value: Any) -> str:
    """A YAML value as JavaScript would turn it into text for ``includes``/``===``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def quoted(values: list[str]) -> str:
    return ", ".join(f'"{v}"' for v in values)


class TextAssertion(Evaluator):
    """Base: one pass/fail check with AgentV's assertion text."""

    def outcome(self, passed: bool, text_: str) -> EvaluatorResult:
        return self.result(1.0 if passed else 0.0, hits=[text_] if passed else [],
                           misses=[] if passed else [text_], verdict="pass" if passed else "fail",
                           assertions=[{"text": text_, "passed": passed}])


class Contains(TextAssertion):
    """The answer contains `value` (case-sensitive)."""
    kind = "contains"
    value: str

    @field_validator("value", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return text(value) if isinstance(value, (int, float, bool)) else value

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        passed = self.value in ctx.candidate_answer
        return self.outcome(passed, f'Output contains "{self.value}"' if passed
                            else f'Output does not contain "{self.value}"')


class Icontains(Contains):
    """The answer contains `value`, ignoring case."""
    kind = "icontains"

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        passed = self.value.lower() in ctx.candidate_answer.lower()
        return self.outcome(passed, f'Output contains "{self.value}" (case-insensitive)'
                            if passed else
                            f'Output does not contain "{self.value}" (case-insensitive)')


class _ListAssertion(TextAssertion):
    value: list[str] = Field(min_length=1)
    ignore_case: bool = False

    @field_validator("value", mode="before")
    @classmethod
    def _texts(cls, value: Any) -> Any:
        return [text(v) for v in value] if isinstance(value, list) else value

    def found(self, answer: str) -> list[bool]:
        if self.ignore_case:
            return [v.lower() in answer.lower() for v in self.value]
        return [v in answer for v in self.value]

    @property
    def note(self) -> str:
        return " (case-insensitive)" if self.ignore_case else ""


class ContainsAny(_ListAssertion):
    """The answer contains at least one of `value`."""
    kind = "contains-any"

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        matched = [v for v, hit in zip(self.value, self.found(ctx.candidate_answer)) if hit]
        if matched:
            return self.outcome(True, f'Output contains "{matched[0]}"{self.note}')
        return self.outcome(False, f"Output does not contain any of: {quoted(self.value)}"
                            f"{self.note}")


class ContainsAll(_ListAssertion):
    """The answer contains every one of `value`."""
    kind = "contains-all"

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        missing = [v for v, hit in zip(self.value, self.found(ctx.candidate_answer)) if not hit]
        if not missing:
            return self.outcome(True, f"Output contains all {len(self.value)} expected strings"
                                f"{self.note}")
        label = "Output missing (case-insensitive)" if self.ignore_case else "Output missing"
        return self.outcome(False, f"{label}: {quoted(missing)}")


class IcontainsAny(ContainsAny):
    """The answer contains at least one of `value`, ignoring case."""
    kind = "icontains-any"
    ignore_case: bool = True


class IcontainsAll(ContainsAll):
    """The answer contains every one of `value`, ignoring case."""
    kind = "icontains-all"
    ignore_case: bool = True


class StartsWith(Contains):
    """The answer, trimmed, starts with `value` (trimmed)."""
    kind = "starts-with"

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        passed = ctx.candidate_answer.strip().startswith(self.value.strip())
        return self.outcome(passed, f'Output starts with "{self.value}"' if passed
                            else f'Output does not start with "{self.value}"')


class EndsWith(Contains):
    """The answer, trimmed, ends with `value` (trimmed)."""
    kind = "ends-with"

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        passed = ctx.candidate_answer.strip().endswith(self.value.strip())
        return self.outcome(passed, f'Output ends with "{self.value}"' if passed
                            else f'Output does not end with "{self.value}"')


class Equals(Contains):
    """The answer, trimmed, equals `value` (trimmed)."""
    kind = "equals"

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        passed = ctx.candidate_answer.strip() == self.value.strip()
        return self.outcome(passed, f'Output equals "{self.value}"' if passed
                            else f'Output does not equal "{self.value}"')


class Regex(TextAssertion):
    """The answer matches the JavaScript pattern `value` (with `flags`), as
    ``new RegExp(value, flags).test(answer)`` (evaluators.js_regex). A pattern or flags
    JavaScript rejects fail when graded, as in AgentV (the file still loads)."""
    kind = "regex"
    value: str
    flags: str = ""

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        passed = js_test(self.value, self.flags, ctx.candidate_answer)
        shown = f"/{self.value}/{self.flags}" + (f" (flags: {self.flags})" if self.flags else "")
        return self.outcome(passed, f"Output matches pattern {shown}" if passed
                            else f"Output does not match pattern {shown}")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class IsJson(TextAssertion):
    """The answer is JSON (as `JSON.parse` reads it)."""
    kind = "is-json"

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        try:
            json.loads(ctx.candidate_answer, parse_constant=_no_constant)
            passed = True
        except ValueError:
            passed = False
        return self.outcome(passed, "Output is valid JSON" if passed
                            else "Output is not valid JSON")
