"""Rubric items: parsing (strings, objects, shorthand score ranges) and validation.

``score_ranges`` are a list of ``{score_range: [lo, hi], expected_outcome}`` or the
shorthand map ``{0: text, 3: text, ...}`` whose keys are lower bounds (each range runs
to the next key − 1, the last to 10). Ranges must be integers 0–10, must not overlap
and must cover 0–10.
"""
from __future__ import annotations

from typing import Any, Callable

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, model_validator

from agentv.providers.base_settings import NumbersNotText


class ScoreRange(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    score_range: tuple[int, int]
    expected_outcome: str = Field(validation_alias=AliasChoices(
        "expected_outcome", "description", "outcome"))


class RubricItem(NumbersNotText):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    id: str
    expected_outcome: str = Field(default="", validation_alias=AliasChoices(
        "expected_outcome", "description", "outcome"))
    weight: float = Field(default=1.0, ge=0)
    required: bool | None = None
    required_min_score: int | None = Field(default=None, ge=0, le=10)
    score_ranges: list[ScoreRange] | None = None

    @model_validator(mode="after")
    def _consistent(self) -> "RubricItem":
        if self.score_ranges:
            check_coverage([r.score_range for r in self.score_ranges])
        elif not self.expected_outcome.strip():
            raise ValueError(f"rubric '{self.id}' needs 'expected_outcome' (or score_ranges)")
        return self

    @property
    def label(self) -> str:
        return self.expected_outcome.strip() or self.id

    @property
    def is_required(self) -> bool:
        """Checklist mode: items are required unless ``required: false``."""
        return self.required is not False

    @property
    def min_score(self) -> int | None:
        """Score-range mode gate: ``required_min_score``, or 10 for ``required: true``."""
        if self.required_min_score is not None:
            return self.required_min_score
        return 10 if self.required is True else None

    def checklist_line(self) -> str:
        required = " (REQUIRED)" if self.is_required else ""
        weight = f" (weight: {self.weight:g})" if self.weight != 1.0 else ""
        return f"- [{self.id}]{required}{weight}: {self.label}"

    def range_lines(self) -> list[str]:
        weight = f" (weight: {self.weight:g})" if self.weight != 1.0 else ""
        gate = f" [REQUIRED: min score {self.min_score}]" if self.min_score is not None else ""
        lines = ["", f"### Criterion: {self.id}{weight}{gate}"]
        if self.expected_outcome.strip():
            lines.append(f"Description: {self.expected_outcome.strip()}")
        if self.score_ranges:
            lines.append("Score ranges:")
            lines += [f"  - Score {_span(r.score_range)}: {r.expected_outcome}"
                      for r in self.score_ranges]
        return lines

    def range_note(self, raw: int | None) -> str:
        for r in self.score_ranges or []:
            if raw is not None and r.score_range[0] <= raw <= r.score_range[1]:
                return f" ({r.expected_outcome})"
        return ""


def _span(bounds: tuple[int, int]) -> str:
    return str(bounds[0]) if bounds[0] == bounds[1] else f"{bounds[0]}-{bounds[1]}"


def check_coverage(ranges: list[tuple[int, int]]) -> None:
    expected_lo = 0
    for lo, hi in sorted(ranges):
        if not (0 <= lo <= hi <= 10):
            raise ValueError(f"score range [{lo}, {hi}] must lie within 0-10 with lo <= hi")
        if lo < expected_lo:
            raise ValueError(f"score range [{lo}, {hi}] overlaps the previous range")
        if lo > expected_lo:
            raise ValueError(f"score ranges leave {expected_lo}-{lo - 1} uncovered")
        expected_lo = hi + 1
    if expected_lo != 11:
        raise ValueError(f"score ranges leave {expected_lo}-10 uncovered")


def expand_shorthand(ranges: Any) -> Any:
    """``{0: a, 3: b, 8: c}`` → ``[{score_range: [0, 2], ...}, [3, 7], [8, 10]]``."""
    if not isinstance(ranges, dict):
        return ranges
    try:
        bounds = sorted((int(k), v) for k, v in ranges.items())
    except (TypeError, ValueError):
        raise ValueError("score_ranges map keys must be integers 0-10") from None
    if not bounds or bounds[0][0] != 0:
        raise ValueError("score_ranges map must start at 0")
    his = [b[0] - 1 for b in bounds[1:]] + [10]
    return [{"score_range": [lo, hi], "expected_outcome": text}
            for (lo, text), hi in zip(bounds, his)]


def normalize(raw: Any) -> list[Any]:
    """Raw YAML rubrics → item dicts with ids (``rubric-<n>`` when missing)."""
    if not isinstance(raw, list):
        raise ValueError("rubrics must be a list of strings or objects")
    out: list[Any] = []
    for i, item in enumerate(raw, 1):
        if isinstance(item, str):
            out.append({"id": f"rubric-{i}", "expected_outcome": item})
        elif isinstance(item, dict):
            entry = dict(item)
            entry["id"] = str(entry.get("id") or f"rubric-{i}")
            if "score_ranges" in entry:
                entry["score_ranges"] = expand_shorthand(entry["score_ranges"])
            out.append(entry)
        else:
            out.append(item)  # pydantic reports the bad type with its position
    ids = [e["id"] for e in out if isinstance(e, dict)]
    duplicates = sorted({x for x in ids if ids.count(x) > 1})
    if duplicates:
        raise ValueError(f"duplicate rubric id(s): {', '.join(duplicates)}")
    return out


def parse_rubrics(raw: Any) -> list[Any]:
    """Normalized item dicts (validated into ``RubricItem`` by the evaluator's field);
    already-built items pass through."""
    if isinstance(raw, list) and all(isinstance(i, RubricItem) for i in raw):
        return raw
    return normalize(raw)


def items_from(raw: Any) -> list[RubricItem]:
    """Validated items from a raw list (runtime use: the case's ``rubrics``)."""
    return [i if isinstance(i, RubricItem) else RubricItem.model_validate(i)
            for i in parse_rubrics(raw)]


def warn_unknown_keys(items: list[Any], warn: Callable[[str], None] | None, where: str) -> None:
    if not warn:
        return
    known = set(RubricItem.model_fields) | {"description", "outcome"}
    for item in items:
        if isinstance(item, dict):
            extra = sorted(set(item) - known)
            if extra:
                warn(f"{where}: unknown key(s) {', '.join(extra)} in rubric "
                     f"'{item.get('id')}' (ignored)")
