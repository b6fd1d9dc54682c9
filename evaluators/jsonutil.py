"""Small JSON and number helpers shared by the deterministic evaluators (stdlib only)."""
from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n(.*?)\n?```", re.DOTALL)
_NUMBER = re.compile(r"[-+]?(?:\d+(?:[.,]\d+)*(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?")
MISSING = object()
MAX_ITEMS = 4  # a verdict's hits / misses kept


def parse_json(value: Any) -> Any:
    """JSON from an answer: already-parsed values pass through; text may be fenced or
    surrounded by prose (the first object/array wins). Raises ValueError otherwise."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    try:
        return json.loads(text)
    except ValueError:
        pass
    fenced = _FENCE.search(text)
    if fenced:
        try:
            return json.loads(fenced.group(1))
        except ValueError:
            pass
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[\[{]", text):
        try:
            return decoder.raw_decode(text, match.start())[0]
        except ValueError:
            continue
    raise ValueError("not valid JSON")


def first_json_object(text: str) -> dict[str, Any] | None:
    """The first decodable JSON object in ``text`` (fenced or surrounded by prose)."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text or ""):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def subset_mismatches(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Where ``actual`` fails to contain ``expected``: mappings recursively (extra keys in
    ``actual`` are fine), everything else by equality. Empty list = subset holds."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path or '$'}: expected an object, got {type(actual).__name__}"]
        out: list[str] = []
        for key, value in expected.items():
            where = f"{path}.{key}" if path else str(key)
            if key not in actual:
                out.append(f"{where}: missing")
            else:
                out.extend(subset_mismatches(value, actual[key], where))
        return out
    if expected != actual:
        return [f"{path or '$'}: expected {json.dumps(expected, default=str)}, "
                f"got {json.dumps(actual, default=str)}"]
    return []


def to_number(value: Any) -> float | None:
    """A number from a number or a numeric string (``"1,889.50"`` → 1889.5)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip().replace(",", ""))
        except ValueError:
            return None
    return None


_JS_FLOAT = re.compile(r"[+-]?(?:Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")


def js_number(value: Any) -> float | None:
    """AgentV 4.x's ``toNumber``: a number, or JavaScript's ``parseFloat`` of a string (the
    longest number at its start: ``"2025-01-15"`` → 2025, ``"1,889.50"`` → 1)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        found = _JS_FLOAT.match(value.lstrip(" \t\n\r\v\f\u00a0\ufeff\u2028\u2029"))
        return float(found.group().replace("Infinity", "inf")) if found else None
    return None


def number_in_text(value: Any) -> float | None:
    """The whole value as a number, else the last number written in the text."""
    direct = to_number(value)
    if direct is not None or not isinstance(value, str):
        return direct
    found = _NUMBER.findall(value)
    return to_number(found[-1]) if found else None


def resolve_path(data: Any, path: str) -> Any:
    """``a.b[0].c`` into nested mappings/lists; ``MISSING`` when any step is absent."""
    current = data
    for part in (p for p in re.split(r"\.|\[|\]", path) if p):
        if isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        elif isinstance(current, dict) and part in current:
            current = current[part]
        else:
            return MISSING
    return current


def clean_items(items: Any) -> list[str]:
    """A verdict's ``hits`` / ``misses``: strings, trimmed, non-empty, at most 4."""
    if not isinstance(items, list):
        return []
    out = [str(i).strip() for i in items if i is not None and str(i).strip()]
    return out[:MAX_ITEMS]
