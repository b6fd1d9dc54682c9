"""A pydantic ``ValidationError``'s errors with a union's branches merged: ``script: 42``
against ``str | list[str]`` is one error (``must be a string or a list, got 42``) at
``script``, not one per branch (``script.str``, ``script.list[str]``)."""
from __future__ import annotations

import re
from typing import Any

_TAG = re.compile(r"[a-z_]+\[.*\]|str|int|float|bool|bytes|none|[A-Z]\w*"
                  r"|function-\w+\[.*\]|constrained-\w+")


def _branch(loc: tuple) -> tuple | None:
    """The field a union branch's error belongs to (its loc without the branch tag)."""
    if len(loc) >= 2 and isinstance(loc[-1], str) and _TAG.fullmatch(loc[-1]):
        return tuple(loc[:-1])
    return None


def merged_errors(errors: list[Any]) -> list[dict[str, Any]]:
    """``err.errors()`` with every union's branch errors folded into one per field."""
    from agentv.providers.error_phrases import describe_error
    out: list[dict[str, Any]] = []
    seen: dict[tuple, dict[str, Any]] = {}
    for e in errors:
        field = _branch(tuple(e.get("loc", ())))
        if field is None:
            out.append(e)
            continue
        phrase = describe_error({k: v for k, v in e.items() if k != "input"})
        if field in seen:
            merged = seen[field]
            if phrase not in merged["phrases"]:
                merged["phrases"].append(phrase)
            continue
        merged = {**e, "loc": field, "type": "union", "phrases": [phrase]}
        seen[field] = merged
        out.append(merged)
    for merged in seen.values():
        phrases = merged.pop("phrases")
        rest = [p.removeprefix("must be ") for p in phrases[1:]]
        merged["msg"] = " or ".join([phrases[0], *rest])
    return out
