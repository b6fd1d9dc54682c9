"""AgentV 4.x's deterministic assertions on the answer text: ``contains``, ``icontains``,
``contains-any``, ``contains-all``, ``icontains-any``, ``icontains-all``, ``starts-with``,
``ends-with``, ``equals``, ``regex``, ``is-json``.

Scored exactly as AgentV 4.42.4 scores them (``graders/assertions.ts``): 1 or 0, verdict pass
or fail, one assertion whose text is AgentV's. ``contains`` and friends look for the literal
text (``icontains*`` lower-cased); ``starts-with``, ``ends-with`` and ``equals`` compare both
sides trimmed; ``regex`` is a JavaScript pattern with its `flags` (evaluators/js_regex.py:
JavaScript's ``$``, ``.``, ``\\d``/``\\w``/``\\b``, flags ``imsuygd``); ``is-json`` means
``JSON.parse`` accepts the answer (``NaN``/``Infinity`` are not JSON).

``regex`` is one class for both generations: a v2 file's ``regex`` is the same JavaScript
pattern (v2 spells it `pattern`, its flags `ignore_case` / `multiline`), recorded as v2 records
a check (a scored match: ``matched '…'``).
"""
from __future__ import annotations

import json
from typing import Any, ClassVar

from pydantic import AliasChoices, Field, PrivateAttr, field_validator, model_validator

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult, agentv4_rules
from agentv.evaluators.js_regex import JsRegexError, compile_js
from agentv.evaluators.js_regex import test as js_test
from agentv.evaluators.score import Score, passed_score
from agentv.evaluators.scored import score_result


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


class _Compared(Contains):
    """Base: the trimmed answer compared with the trimmed `value` by the ``str`` method
    ``compare``, in AgentV's words (``phrases``: when it holds, when it does not)."""
    compare: ClassVar[str]
    phrases: ClassVar[tuple[str, str]]

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        passed = bool(getattr(ctx.candidate_answer.strip(), self.compare)(self.value.strip()))
        return self.outcome(passed, f'Output {self.phrases[0 if passed else 1]} "{self.value}"')


class StartsWith(_Compared):
    """The answer, trimmed, starts with `value` (trimmed)."""
    kind = "starts-with"
    compare = "startswith"
    phrases = ("starts with", "does not start with")


class EndsWith(_Compared):
    """The answer, trimmed, ends with `value` (trimmed)."""
    kind = "ends-with"
    compare = "endswith"
    phrases = ("ends with", "does not end with")


class Equals(_Compared):
    """The answer, trimmed, equals `value` (trimmed)."""
    kind = "equals"
    compare = "__eq__"
    phrases = ("equals", "does not equal")


class Regex(TextAssertion):
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
    _agentv4: bool = PrivateAttr(default=False)

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
    def _generation(self, info: Any) -> "Regex":
        """4.x records AgentV 4.42.4's assertion; v2 a scored match with its flag keys."""
        self._agentv4 = agentv4_rules(info)
        if not self._agentv4:
            self.flags += "i" * self.ignore_case + "m" * self.multiline
        return self

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        if not self._agentv4:
            return score_result(self, self.found(ctx.candidate_answer))
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
