"""The deterministic checks of the answer text, one class each for both generations:
``contains`` and ``equals`` (v2: ``exact_match``), and AgentV 4.x's ``icontains``,
``contains-any``, ``contains-all``, ``icontains-any``, ``icontains-all``, ``starts-with``,
``ends-with`` (the answer's form — ``regex``, ``is-json``: evaluators.text_forms).

Scored exactly as AgentV 4.42.4 scores them (``graders/assertions.ts``): 1 or 0, verdict pass
or fail, one assertion whose text is AgentV's. ``contains`` and friends look for the literal
text (``icontains*`` lower-cased); ``starts-with``, ``ends-with`` and ``equals`` compare both
sides trimmed.

A v2 file's check (``TextCheck.checked``) is scored as v2 scores it: a missing ``value`` is
the case's expected answer; ``contains`` with a list scores the share found; ``exact_match``
compares JSON values as JSON, text trimmed (``trim``) and ``case_sensitive``; ``is_json``
reads fenced JSON and checks a ``schema`` (inline or a file beside the eval); ``regex`` is the
same JavaScript pattern (v2 spells it `pattern`, its flags `ignore_case` / `multiline`) —
recorded as v2 records a check (``matched '…'``).
"""
from __future__ import annotations

import json
from abc import abstractmethod
from typing import Any, ClassVar

from pydantic import (
    Field,
    PrivateAttr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from agentv.evaluators import functions as fn
from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult, agentv4_rules
from agentv.evaluators.jsonutil import MISSING, parse_json
from agentv.evaluators.score import Score, passed_score
from agentv.evaluators.scored import NO_EXPECTED, configured_or_expected, score_result


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


class TextCheck(TextAssertion):
    """Base of a check both generations write: 4.x gets ``asserted`` (AgentV's assertion),
    v2 ``checked`` (a ``Score``; None: the kind is 4.x's only)."""
    _agentv4: bool = PrivateAttr(default=False)

    @model_validator(mode="after")
    def _generation(self, info: ValidationInfo) -> "TextCheck":
        self._agentv4 = agentv4_rules(info)
        if self._agentv4:
            self.agentv4_value()
        return self

    def agentv4_value(self) -> None:
        """4.x's value: text (a number or boolean as JavaScript prints it)."""
        value = getattr(self, "value", "")
        if isinstance(value, (int, float, bool)):
            object.__setattr__(self, "value", text(value))
        elif not isinstance(value, str):
            raise ValueError("value: must be text")

    def checked(self, ctx: EvalContext) -> Score | None:
        return None

    @abstractmethod
    async def asserted(self, ctx: EvalContext) -> EvaluatorResult:
        """4.x: AgentV 4.42.4's pass/fail assertion on the answer."""

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        score = None if self._agentv4 else self.checked(ctx)
        return await self.asserted(ctx) if score is None else score_result(self, score)

    def expected(self, ctx: EvalContext, value: Any) -> Any:
        """v2: ``value`` when configured, else the case's expected answer (or ``MISSING``)."""
        return configured_or_expected(ctx, value)


class Contains(TextCheck):
    """The answer contains `value` (v2: a list scores the share found; none: the expected
    answer)."""
    kind = "contains"
    value: str | list[str] | None = None
    case_sensitive: bool = True

    @field_validator("value", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return text(value) if isinstance(value, (int, float, bool)) else value

    async def asserted(self, ctx: EvalContext) -> EvaluatorResult:
        passed = str(self.value) in ctx.candidate_answer
        return self.outcome(passed, f'Output contains "{self.value}"' if passed
                            else f'Output does not contain "{self.value}"')

    def checked(self, ctx: EvalContext) -> Score | None:
        expected = self.expected(ctx, self.value)
        if expected is MISSING:
            return passed_score(False, NO_EXPECTED)
        needles = expected if isinstance(expected, list) else [expected]
        answer = self._fold(ctx.candidate_answer)
        missing = [n for n in needles if self._fold(n) not in answer]
        reason = (f"missing: {', '.join(repr(str(n)) for n in missing)}" if missing
                  else f"found {len(needles)} of {len(needles)}")
        return Score(value=1 - len(missing) / len(needles), passed=not missing, reason=reason)

    def _fold(self, value: Any) -> str:
        return str(value) if self.case_sensitive else str(value).casefold()


class Icontains(Contains):
    """The answer contains `value`, ignoring case (4.x)."""
    kind = "icontains"

    async def asserted(self, ctx: EvalContext) -> EvaluatorResult:
        passed = str(self.value).lower() in ctx.candidate_answer.lower()
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


class _Compared(TextCheck):
    """Base: the trimmed answer compared with the trimmed `value` by the ``str`` method
    ``compare``, in AgentV's words (``phrases``: when it holds, when it does not)."""
    compare: ClassVar[str]
    phrases: ClassVar[tuple[str, str]]
    value: Any = None

    async def asserted(self, ctx: EvalContext) -> EvaluatorResult:
        value = str(self.value)
        passed = bool(getattr(ctx.candidate_answer.strip(), self.compare)(value.strip()))
        return self.outcome(passed, f'Output {self.phrases[0 if passed else 1]} "{value}"')


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
    """The answer equals `value`, both trimmed (v2 `exact_match`: JSON compared as JSON; no
    value: the expected answer)."""
    kind = "exact_match"  # 4.x: `equals`
    compare = "__eq__"
    phrases = ("equals", "does not equal")
    case_sensitive: bool = True
    trim: bool = True

    def checked(self, ctx: EvalContext) -> Score | None:
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
        written = value if isinstance(value, str) else json.dumps(value)
        written = written.strip() if self.trim else written
        return written if self.case_sensitive else written.casefold()
