"""field_accuracy: exact, numeric tolerance, dates, required/optional, weights."""
from __future__ import annotations

import json

import pytest

from agentv.providers.base import ConfigError
from tests.evaluator_helpers import make_ctx, run

EXPECTED = {"invoice_number": "INV-1", "invoice_date": "15-JAN-2025", "currency": "USD",
            "net_total": 1889, "supplier": {"name": "Acme", "address": "1 Road"},
            "line_items": [{"description": "Freight", "line_total": 1370}]}
FIELDS = [{"path": "invoice_number", "weight": 2},
          {"path": "invoice_date", "match": "date", "formats": ["DD-MMM-YYYY", "YYYY-MM-DD"]},
          {"path": "currency"},
          {"path": "net_total", "match": "numeric_tolerance", "tolerance": 1.0, "weight": 3},
          {"path": "supplier.name"},
          {"path": "supplier.address", "required": False, "weight": 0.5},
          {"path": "line_items[0].line_total", "match": "numeric_tolerance", "tolerance": 1}]


def ctx_for(answer, expected=EXPECTED):
    text = answer if isinstance(answer, str) else json.dumps(answer)
    return make_ctx(text, expected_messages=[{"role": "user", "content": "extract"},
                                             {"role": "assistant", "content": expected}])


def test_perfect_extraction_with_normalized_values():
    answer = {**EXPECTED, "invoice_date": "2025-01-15", "net_total": "1889.5"}
    result = run({"type": "field_accuracy", "fields": FIELDS}, ctx_for(answer))
    assert result.score == 1.0 and result.reasoning == "7/7 fields matched"
    assert "net_total (within tolerance: diff=0.50)" in all_hits(result)


def test_missing_required_field_loses_its_weight():
    answer = {k: v for k, v in EXPECTED.items() if k != "invoice_number"}
    result = run({"type": "field_accuracy", "fields": FIELDS}, ctx_for(answer))
    assert result.score == pytest.approx(1 - 2 / 9.5)
    assert result.misses == ["invoice_number (required, missing)"]


def test_missing_optional_field_is_not_counted():
    answer = json.loads(json.dumps(EXPECTED))
    del answer["supplier"]["address"]
    result = run({"type": "field_accuracy", "fields": FIELDS}, ctx_for(answer))
    assert result.score == 1.0 and "supplier.address: optional field missing" in all_hits(result)


def test_field_without_expected_value_counts_as_matched():
    expected = {k: v for k, v in EXPECTED.items() if k != "currency"}
    result = run({"type": "field_accuracy", "fields": FIELDS}, ctx_for(EXPECTED, expected))
    assert result.score == 1.0 and "currency: no expected value" in all_hits(result)


def test_mismatches_explain_themselves():
    answer = {**EXPECTED, "currency": "EUR", "net_total": 1900, "invoice_date": "16-JAN-2025",
              "invoice_number": 1}
    result = run({"type": "field_accuracy", "fields": FIELDS}, ctx_for(answer))
    assert set(result.misses) == {
        "invoice_number (type mismatch: got int, expected str)",
        "invoice_date (date mismatch: got 2025-01-16, expected 2025-01-15)",
        'currency (value mismatch: got "EUR")',
        "net_total (outside tolerance: diff=11.00, tolerance=1)"}
    assert result.score == pytest.approx(2.5 / 9.5)


def test_relative_tolerance_and_unparseable_dates():
    fields = [{"path": "net_total", "match": "numeric_tolerance", "tolerance": 0.01,
               "relative": True}, {"path": "invoice_date", "match": "date"}]
    answer = {**EXPECTED, "net_total": 1900, "invoice_date": "sometime"}
    result = run({"type": "field_accuracy", "fields": fields}, ctx_for(answer))
    assert "net_total (within tolerance: diff=11.00)" in all_hits(result)
    assert result.misses == ["invoice_date (unparseable candidate date)"]


def test_all_or_nothing_aggregation():
    fields = [{"path": "currency"}, {"path": "supplier.name"}]
    config = {"type": "field_accuracy", "fields": fields, "aggregation": "all_or_nothing"}
    assert run(config, ctx_for(EXPECTED)).score == 1.0
    assert run(config, ctx_for({**EXPECTED, "currency": "GBP"})).score == 0.0


def test_non_json_answer_scores_zero_with_a_clear_miss():
    result = run({"type": "field_accuracy", "fields": FIELDS}, ctx_for("I could not read it."))
    assert result.score == 0 and result.error is None
    assert result.misses == ["Failed to parse candidate answer as JSON"]


def test_fenced_json_answer_is_accepted():
    answer = "Here you go:\n```json\n" + json.dumps(EXPECTED) + "\n```"
    assert run({"type": "field_accuracy", "fields": FIELDS}, ctx_for(answer)).score == 1.0


def test_no_expected_messages_is_a_clear_miss():
    result = run({"type": "field_accuracy", "fields": FIELDS}, make_ctx(json.dumps(EXPECTED)))
    assert result.score == 0 and result.misses == ["No expected data found in expected_messages"]


def test_expected_json_may_be_text():
    ctx = make_ctx('{"a": 1}', expected_messages=[{"role": "assistant", "content": '{"a": 1}'}])
    assert run({"type": "field_accuracy", "fields": [{"path": "a"}]}, ctx).score == 1


def test_bad_field_config():
    with pytest.raises(ConfigError) as err:
        run({"type": "field_accuracy", "fields": [{"path": "a", "match": "fuzzy"}]}, make_ctx())
    assert err.value.field == "fields.0.match"
    with pytest.raises(ConfigError):
        run({"type": "field_accuracy", "fields": []}, make_ctx())


def all_hits(result) -> list[str]:
    """Every hit: the record lists 4 (AgentV's cap), ``details`` keeps the full list."""
    return (result.details or {}).get("hits", result.hits)


def test_hits_and_misses_are_capped_at_four_like_agentv():
    result = run({"type": "field_accuracy", "fields": FIELDS}, ctx_for(EXPECTED))
    assert len(result.hits) == 4 and len(result.details["hits"]) > 4
    assert result.hits == result.details["hits"][:4]
