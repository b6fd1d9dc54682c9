"""``field_accuracy``: JSON answer fields compared with the expected fields (AgentV).

Each field is ``{path, match, required, weight}`` with ``match`` one of ``exact`` (deep
equality), ``numeric_tolerance`` (``tolerance``, absolute or ``relative``) and ``date``
(``formats`` such as ``DD-MMM-YYYY``; ISO dates always parse). Paths use dots and
``[i]``. The expected data is the last assistant expected message's JSON content.
Score = weighted fraction of matched fields (``all_or_nothing``: 1 only if all match).
A field with no expected value counts as matched; a missing optional field is skipped;
a missing required one fails. A non-JSON answer scores 0 with a clear miss.
"""
from __future__ import annotations

import json
import math
from datetime import date, datetime
from typing import Any, Callable, Literal

from pydantic import ConfigDict, Field, PrivateAttr, ValidationInfo, model_validator

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult, agentv4_rules
from agentv.evaluators.jsonutil import MISSING, js_number, parse_json, resolve_path, to_number
from agentv.providers.base_settings import NumbersNotText

MAX_LISTED = 4
DEFAULT_DATE_FORMATS = ["YYYY-MM-DD", "DD-MMM-YYYY", "MM/DD/YYYY", "DD/MM/YYYY", "MM-DD-YYYY",
                        "DD-MM-YYYY", "MMMM D, YYYY", "D MMMM YYYY"]
_TOKENS = [("YYYY", "%Y"), ("MMMM", "%B"), ("MMM", "%b"), ("MM", "%m"), ("DD", "%d"),
           ("HH", "%H"), ("mm", "%M"), ("ss", "%S"), ("D", "%d"), ("M", "%m")]


class FieldSpec(NumbersNotText):
    model_config = ConfigDict(extra="allow")
    path: str
    match: Literal["exact", "numeric_tolerance", "date"] = "exact"
    required: bool = True
    weight: float = Field(default=1.0, ge=0)
    tolerance: float = Field(default=0.0, ge=0)
    relative: bool = False
    formats: list[str] | None = None


class FieldAccuracy(Evaluator):
    """Weighted fraction of matched `fields` of a JSON answer (`{path, match: exact |
    numeric_tolerance | date, required, weight, tolerance, relative, formats}`); like AgentV, at
    most 4 hits and 4 misses listed (all in `details`)."""
    kind = "field_accuracy"
    # AgentV lists at most 4 hits and 4 misses; the full lists go to ``details``
    fields: list[FieldSpec] = Field(min_length=1)
    aggregation: Literal["weighted_average", "all_or_nothing"] = "weighted_average"
    # AgentV 4.x: numbers read with JavaScript's parseFloat; no weight at all scores 0
    _agentv4: bool = PrivateAttr(default=False)

    @model_validator(mode="after")
    def _generation(self, info: ValidationInfo) -> "FieldAccuracy":
        self._agentv4 = agentv4_rules(info)
        return self

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        try:
            answer = parse_json(ctx.candidate_answer)
        except ValueError:
            return self.result(0.0, misses=["Failed to parse candidate answer as JSON"],
                               reasoning="Candidate answer is not valid JSON")
        expected = expected_data(ctx)
        if expected is None:
            return self.result(0.0, misses=["No expected data found in expected_messages"],
                               reasoning="Could not extract expected data from "
                                         "expected_messages")
        number = js_number if self._agentv4 else to_number
        outcomes = [compare_field(spec, answer, expected, number) for spec in self.fields]
        counted = [o for o in outcomes if o[1] > 0]
        matched = sum(1 for o in outcomes if o[0])
        if self.aggregation == "all_or_nothing":
            score = 1.0 if all(o[0] for o in outcomes) else 0.0
        else:
            total = sum(o[1] for o in counted)
            score = sum(o[1] for o in counted if o[0]) / total if total else (
                0.0 if self._agentv4 else 1.0)
        hits = [o[2] for o in outcomes if o[0]]
        misses = [o[2] for o in outcomes if not o[0]]
        return self.result(score, hits[:MAX_LISTED], misses[:MAX_LISTED],
                           f"{matched}/{len(outcomes)} fields matched",
                           details={"hits": hits, "misses": misses}
                           if len(hits) > MAX_LISTED or len(misses) > MAX_LISTED else None)


def expected_data(ctx: EvalContext) -> Any:
    for message in reversed(ctx.expected_messages or []):
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        content = message.get("content")
        if isinstance(content, (dict, list)) and not _is_blocks(content):
            return content
        if isinstance(content, str):
            try:
                return parse_json(content)
            except ValueError:
                continue
    return None


def _is_blocks(content: Any) -> bool:
    return isinstance(content, list) and all(isinstance(b, dict) and "type" in b for b in content)


def compare_field(spec: FieldSpec, answer: Any, expected: Any,
                  number: Callable[[Any], float | None] = to_number
                  ) -> tuple[bool, float, str]:
    """(matched, weight counted, message); ``number`` reads a numeric field."""
    want, got = resolve_path(expected, spec.path), resolve_path(answer, spec.path)
    if want is MISSING:
        return True, spec.weight, f"{spec.path}: no expected value"
    if got is MISSING:
        if spec.required:
            return False, spec.weight, f"{spec.path} (required, missing)"
        return True, 0.0, f"{spec.path}: optional field missing"
    if spec.match == "numeric_tolerance":
        return _numeric(spec, got, want, number)
    if spec.match == "date":
        return _date(spec, got, want)
    if got == want:
        return True, spec.weight, spec.path
    if type(got) is not type(want):
        return False, spec.weight, (f"{spec.path} (type mismatch: got {type(got).__name__}, "
                                    f"expected {type(want).__name__})")
    return False, spec.weight, f"{spec.path} (value mismatch: got {json.dumps(got, default=str)})"


def _numeric(spec: FieldSpec, got: Any, want: Any,
             number: Callable[[Any], float | None]) -> tuple[bool, float, str]:
    a, b = number(got), number(want)
    if a is not None and b is not None and not (math.isfinite(a) and math.isfinite(b)):
        return False, spec.weight, f"{spec.path} (invalid numeric value)"
    if a is None or b is None:
        return False, spec.weight, f"{spec.path} (non-numeric value)"
    diff = abs(a - b)
    limit = spec.tolerance * abs(b) if spec.relative and b != 0 else spec.tolerance
    if diff <= limit:
        return True, spec.weight, f"{spec.path} (within tolerance: diff={diff:.2f})"
    return False, spec.weight, (f"{spec.path} (outside tolerance: diff={diff:.2f}, "
                                f"tolerance={spec.tolerance:g})")


def _date(spec: FieldSpec, got: Any, want: Any) -> tuple[bool, float, str]:
    formats = spec.formats or DEFAULT_DATE_FORMATS
    a, b = parse_date(got, formats), parse_date(want, formats)
    if a is None:
        return False, spec.weight, f"{spec.path} (unparseable candidate date)"
    if b is None:
        return False, spec.weight, f"{spec.path} (unparseable expected date)"
    if a == b:
        return True, spec.weight, spec.path
    return False, spec.weight, f"{spec.path} (date mismatch: got {a}, expected {b})"


def parse_date(value: Any, formats: list[str]) -> date | None:
    text = str(value).strip()
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).date()
    except ValueError:
        pass
    for fmt in formats:
        try:
            return datetime.strptime(text, to_strptime(fmt)).date()
        except ValueError:
            continue
    return None


def to_strptime(fmt: str) -> str:
    """``DD-MMM-YYYY`` → ``%d-%b-%Y`` (longest token first)."""
    out, i = [], 0
    while i < len(fmt):
        for token, directive in _TOKENS:
            if fmt.startswith(token, i):
                out.append(directive)
                i += len(token)
                break
        else:
            out.append(fmt[i].replace("%", "%%"))
            i += 1
    return "".join(out)
