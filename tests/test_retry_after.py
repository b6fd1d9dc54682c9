"""Retry-After beyond ``retry_max_delay_ms`` is honoured up to a 10-minute ceiling, with a log
line; a case's ``wait_ms`` (and ``latency_ms``) account for the time spent retrying."""
from __future__ import annotations

import json
import logging

import pytest

from providers.base import ProviderError
from providers.retry import RETRY_AFTER_CEILING_S, RetryPolicy
from tests.stub_llm import start_stub


def _429(after: float) -> ProviderError:
    return ProviderError("rate limited", retryable=True, status=429, retry_after=after)


@pytest.mark.parametrize("after, expected", [(120, 120.0), (5000, RETRY_AFTER_CEILING_S)])
def test_retry_after_beyond_the_cap_is_honoured_up_to_the_ceiling(caplog, after, expected):
    policy = RetryPolicy(initial_delay_ms=10, max_delay_ms=60_000)
    with caplog.at_level(logging.WARNING, logger="agentv.retry"):
        assert policy.delay_s(0, _429(after)) == expected
    assert "beyond retry_max_delay_ms" in caplog.text


def test_retry_after_within_the_cap_is_a_floor_without_a_log_line(caplog):
    policy = RetryPolicy(initial_delay_ms=10, max_delay_ms=60_000)
    with caplog.at_level(logging.WARNING, logger="agentv.retry"):
        assert policy.delay_s(0, _429(2)) == 2.0
        assert policy.delay_s(0, None) <= 0.0125
    assert caplog.text == ""


def test_record_accounts_for_time_spent_retrying(cli, tmp_path):
    base_url, stub = start_stub(script=[429, 429], retry_after=0.4)
    try:
        (tmp_path / "targets.yaml").write_text(
            "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: openai\n"
            f"    model: gpt-4o-mini\n    base_url: {base_url}\n    api_key: k-123456789\n"
            "    retry_initial_delay_ms: 1\n    retry_max_delay_ms: 100\n")
        (tmp_path / "e.yaml").write_text(
            "$schema: agentv-eval-v2\nevalcases:\n  - id: a\n    input: 'What is 1 + 1?'\n"
            "    evaluators: [{type: contains, value: '2'}]\n")
        out = tmp_path / "r.jsonl"
        proc = cli("eval", str(tmp_path / "e.yaml"), "--out", str(out), cwd=tmp_path)
        assert stub.violations == []
    finally:
        stub.stop()
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("beyond retry_max_delay_ms") == 2
    record = json.loads(out.read_text())
    assert record["attempt"] == 3 and record["error"] is None
    assert 800 <= record["wait_ms"] < 3000
    assert record["latency_ms"] >= record["wait_ms"]
