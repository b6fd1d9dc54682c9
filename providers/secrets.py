"""The process-wide secret registry every sink scrubs with (lowest layer: anyone may import).

Values are registered once, when targets and ``.env`` files are loaded (``tasks.load.redact``
decides *what* is secret); ``scrub`` replaces each registered value — and its JSON-escaped
and URL-encoded spellings — with ``***``. ``cut``/``tail`` scrub BEFORE shortening, so a
key straddling the cut never leaks a prefix or suffix.
"""
from __future__ import annotations

import json
import re
import threading
from urllib.parse import quote, quote_plus

MASK = "***"
MIN_LENGTH = 4
_lock = threading.Lock()
_values: tuple[str, ...] = ()  # longest first, so a key containing another is masked whole
_pattern: re.Pattern[str] | None = None  # one pass over the text, whatever the count


def _spellings(value: str) -> set[str]:
    return {value, json.dumps(value, ensure_ascii=False)[1:-1], json.dumps(value)[1:-1],
            quote(value, safe=""), quote_plus(value)}


def add(values) -> None:
    """Register secret values (strings shorter than ``MIN_LENGTH`` are ignored)."""
    global _values, _pattern
    new = {s for v in values if isinstance(v, str) and len(v.strip()) >= MIN_LENGTH
           for s in _spellings(v) if len(s) >= MIN_LENGTH}
    with _lock:
        if new - set(_values):
            _values = tuple(sorted(set(_values) | new, key=len, reverse=True))
            _pattern = re.compile("|".join(map(re.escape, _values)))


def registered() -> tuple[str, ...]:
    return _values


def clear() -> None:
    """Forget every value (tests, or a new run in the same process)."""
    global _values, _pattern
    with _lock:
        _values, _pattern = (), None


def scrub(text: str) -> str:
    pattern = _pattern
    return pattern.sub(MASK, text) if pattern is not None else text


def scrub_obj(value):
    """``scrub`` every string inside dicts/lists/tuples (keys included)."""
    if not _values:
        return value
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {scrub_obj(k): scrub_obj(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(scrub_obj(v) for v in value)
    return value


def cut(text: str, limit: int) -> str:
    """The first ``limit`` characters of the scrubbed text."""
    return scrub(text)[:limit]


def tail(text: str, limit: int) -> str:
    """The last ``limit`` characters of the scrubbed text."""
    return scrub(text)[-limit:] if limit else ""
