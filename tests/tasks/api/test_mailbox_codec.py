"""The mailbox wire format (``tasks.api.mailbox_codec``, pydantic models): what the codecs
wrote before the models (envelopes recorded from that codec) still decodes, and is what
they write now, byte for byte; typed samples and results round-trip; a malformed envelope
is undecodable, never a crash."""
from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from agentv.evaluators import EvalResult, Score
from agentv.tasks.api.dataset import Sample
from agentv.tasks.api.mailbox_codec import (
    EvalRequest,
    EvalRequestCodec,
    EvalResultCodec,
    JsonCodec,
    Undecodable,
    decode_or_undecodable,
    to_jsonable,
)

# recorded from the hand-written codec (agentv before the pydantic models)
RECORDED_REQUEST = (
    '{"schema": "agentv.mailbox/1", "kind": "eval_request", "body": {"request_id": '
    '"4f1c0e0c9a2b4d4e8f5a6b7c8d9e0f10", "created_at": "2026-11-25T15:20:00+00:00", "sample": '
    '{"id": "p-1", "input": {"a": 2, "b": 3, "tags": ["sum", "ünï"]}, "expected": 5}}}')
RECORDED_RESULT = (
    '{"schema": "agentv.mailbox/1", "kind": "eval_result", "body": {"sample_id": "p-1", '
    '"request_id": "4f1c0e0c9a2b4d4e8f5a6b7c8d9e0f10", "score": {"value": 0.75, "passed": '
    'true, "reason": "good: close"}, "latency_ms": 12.5, "error": null, "record": {"eval_id": '
    '"p-1", "score": 0.75, "target": "add"}}}')
RECORDED_JSON = ('{"schema": "agentv.mailbox/1", "kind": "json", '
                 '"body": {"x": [1, 2.5, null, true]}}')
REQUEST_ID = "4f1c0e0c9a2b4d4e8f5a6b7c8d9e0f10"


@dataclass(frozen=True)
class Problem:
    a: int
    b: int
    tags: tuple[str, ...] = ()


def recorded_request() -> EvalRequest:
    return EvalRequest(sample=Sample("p-1", Problem(2, 3, ("sum", "ünï")), 5),
                       request_id=REQUEST_ID, created_at="2026-11-25T15:20:00+00:00")


def recorded_result() -> EvalResult:
    return EvalResult("p-1", Score(0.75, True, "good: close"), 12.5, None,
                      {"eval_id": "p-1", "score": 0.75, "target": "add"}, REQUEST_ID)


def test_recorded_envelopes_decode_and_are_written_byte_for_byte():
    codec = EvalRequestCodec(Problem, int)
    assert codec.decode(RECORDED_REQUEST) == recorded_request()
    assert codec.encode(recorded_request()) == RECORDED_REQUEST
    assert EvalResultCodec().decode(RECORDED_RESULT) == recorded_result()
    assert EvalResultCodec().encode(recorded_result()) == RECORDED_RESULT
    assert JsonCodec().decode(RECORDED_JSON) == {"x": [1, 2.5, None, True]}
    assert JsonCodec().encode({"x": [1, 2.5, None, True]}) == RECORDED_JSON


def test_typed_requests_and_results_round_trip():
    request = EvalRequest(sample=Sample(7, Problem(1, -1), {"any": ["json"]}))
    back = EvalRequestCodec(Problem).decode(EvalRequestCodec().encode(request))
    assert back.sample == Sample("7", Problem(1, -1), {"any": ["json"]})  # ids travel as text
    assert (back.request_id, back.created_at) == (request.request_id, request.created_at)
    failed = EvalResult("7", Score(0.0, False, ""), 3.0, "target failed", None, None)
    assert EvalResultCodec().decode(EvalResultCodec().encode(failed)) == failed


def test_older_and_newer_envelopes_are_read_leniently():
    body = json.loads(RECORDED_RESULT)
    del body["body"]["score"]["reason"], body["body"]["error"], body["body"]["request_id"]
    body["body"]["latency_ms"] = 12  # an integer
    body["body"]["sent_by"] = "a newer worker"  # unknown fields are ignored
    result = EvalResultCodec().decode(json.dumps(body))
    assert result.score == Score(0.75, True, "") and result.latency_ms == 12.0
    assert result.request_id is None and result.error is None


@pytest.mark.parametrize("payload, reason", [
    ("not json", "JSONDecodeError"),
    ('{"schema": "agentv.mailbox/2", "kind": "eval_request", "body": {}}', "not an agentv"),
    (RECORDED_RESULT, "expected a 'eval_request' message"),
    (RECORDED_REQUEST.replace('"expected": 5', '"expected": "five"'), "expected: expected int"),
    (RECORDED_REQUEST.replace('"request_id": "4f1c0e0c9a2b4d4e8f5a6b7c8d9e0f10", ', ""),
     "request_id"),
])
def test_a_malformed_envelope_is_undecodable(payload, reason):
    got = decode_or_undecodable(EvalRequestCodec(Problem, int), payload)
    assert isinstance(got, Undecodable) and reason in got.error, got
    assert got.error.startswith("undecodable message: ")


def test_only_json_data_is_sent():
    assert to_jsonable({1: Problem(1, 2, ("x",)), "s": frozenset([3])}) == {
        "1": {"a": 1, "b": 2, "tags": ["x"]}, "s": [3]}
    with pytest.raises(TypeError, match="cannot send a object through a mailbox"):
        JsonCodec().encode(object())
