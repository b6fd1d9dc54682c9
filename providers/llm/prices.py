"""Token prices and output limits from litellm's bundled price map, read as data.

litellm itself is not imported (4 s, ~175 MB): the JSON file it ships (4.5 MB) is parsed
once and only the few numbers agentv uses are kept per model. Preflight starts that parse on
a thread (``warm``), so the first priced reply does not stall the event loop for ~0.15 s; a
lookup before it is done waits for it rather than parsing again.

    cost_usd(["anthropic/claude-haiku-4-5", "claude-haiku-4-5"], TokenCounts(120, 30))
    max_output_tokens(["claude-haiku-4-5"])   # Anthropic needs max_tokens on every call
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Iterable, NamedTuple

PRICE_FILE = "model_prices_and_context_window_backup.json"


class Price(NamedTuple):
    input: float
    output: float
    cache_read: float | None
    cache_write: float | None
    max_output_tokens: int | None


@dataclass(frozen=True)
class TokenCounts:
    """What a reply reports. ``input`` counts every prompt token, cached ones included."""

    input: int | None
    output: int | None
    cache_read: int = 0
    cache_write: int = 0


def _price_file() -> Path | None:
    spec = find_spec("litellm")
    for location in (spec.submodule_search_locations or []) if spec else []:
        path = Path(location) / PRICE_FILE
        if path.is_file():
            return path
    return None


def _price(entry: dict) -> Price:
    limit = entry.get("max_output_tokens") or entry.get("max_tokens")
    return Price(float(entry.get("input_cost_per_token") or 0.0),
                 float(entry.get("output_cost_per_token") or 0.0),
                 entry.get("cache_read_input_token_cost"),
                 entry.get("cache_creation_input_token_cost"),
                 int(limit) if isinstance(limit, (int, float)) else None)


def _read_table() -> dict[str, Price]:
    path = _price_file()
    if path is None:
        return {}
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {name: _price(entry) for name, entry in raw.items()
            if isinstance(entry, dict) and name != "sample_spec"}


_loaded: list[dict[str, Price]] = []  # the table, once read
_reading = threading.Lock()


def price_table() -> dict[str, Price]:
    """Model name → Price (empty when litellm's price file is not installed)."""
    if not _loaded:
        with _reading:  # a warm-up under way: wait for it
            if not _loaded:
                _loaded.append(_read_table())
    return _loaded[0]


def warm() -> None:
    """Read the price map on a background thread, once (a priced target's preflight)."""
    if not _loaded and not _reading.locked():
        threading.Thread(target=price_table, name="agentv-prices", daemon=True).start()


def lookup(names: Iterable[str | None]) -> Price | None:
    """The first of ``names`` the price map knows."""
    table = price_table()
    for name in names:
        if name and name in table:
            return table[name]
    return None


def cost_usd(names: Iterable[str | None], tokens: TokenCounts) -> float | None:
    """USD for one reply, cached prompt tokens at their own rate; None when unpriced."""
    price = lookup(names)
    if price is None or tokens.input is None or tokens.output is None:
        return None
    cached = tokens.cache_read + tokens.cache_write
    return (max(0, tokens.input - cached) * price.input
            + tokens.cache_read * (price.cache_read if price.cache_read is not None
                                   else price.input)
            + tokens.cache_write * (price.cache_write if price.cache_write is not None
                                    else price.input)
            + tokens.output * price.output)


def max_output_tokens(names: Iterable[str | None]) -> int | None:
    price = lookup(names)
    return price.max_output_tokens if price else None
