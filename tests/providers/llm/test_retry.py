"""Retry-After parsing: milliseconds, seconds, an HTTP date, and malformed values."""
from __future__ import annotations

import email.utils
import time

from agentv.providers.llm.errors import parse_retry_after


def test_milliseconds_seconds_and_dates():
    assert parse_retry_after({"retry-after-ms": "1500"}) == 1.5
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    date = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 <= parse_retry_after({"Retry-After": date}) <= 31
    assert parse_retry_after({}) is None and parse_retry_after(None) is None


def test_malformed_values_fall_back_instead_of_crashing():
    assert parse_retry_after({"retry-after-ms": "soon", "retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after-ms": "soon"}) is None
    assert parse_retry_after({"retry-after": "whenever"}) is None
