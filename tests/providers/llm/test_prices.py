"""The price map (litellm's JSON file, read as data): preflight of a priced wire target
reads it on a background thread, so the first priced reply does not parse 4.5 MB on the
event loop; the prices are those of a plain read."""
from __future__ import annotations

import threading

import pytest

from agentv.providers.base import Target
from agentv.providers.llm import prices
from agentv.providers.registry import build_provider


def _join_warmup() -> None:
    for thread in threading.enumerate():
        if thread.name == "agentv-prices":
            thread.join(timeout=30)


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_preflight_reads_the_price_map_on_a_thread(monkeypatch, wire):
    monkeypatch.setattr(prices, "_loaded", [])  # as in a fresh process
    provider = build_provider(Target("t", wire, {"api_key": "sk-x", "model": "gpt-4o-mini"
                                                 if wire == "openai" else "claude-haiku-4-5",
                                                 "base_url": "http://127.0.0.1:9"}))
    provider.check()
    _join_warmup()
    assert prices._loaded, "preflight did not read the price map"
    assert prices._loaded[0] == prices._read_table()
    fresh = prices._read_table()["gpt-4o-mini"]
    tokens = prices.TokenCounts(1000, 200, cache_read=100)
    assert prices.cost_usd(["gpt-4o-mini"], tokens) == pytest.approx(
        900 * fresh.input + 100 * fresh.cache_read + 200 * fresh.output)


def test_a_lookup_during_the_warmup_waits_for_it(monkeypatch):
    monkeypatch.setattr(prices, "_loaded", [])
    prices.warm()
    table = prices.price_table()  # the thread's table, not a second read
    _join_warmup()
    assert table is prices._loaded[0] and len(prices._loaded) == 1
    assert prices.max_output_tokens(["claude-haiku-4-5"]) == table["claude-haiku-4-5"] \
        .max_output_tokens
