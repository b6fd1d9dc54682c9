"""How mailbox bodies travel: JSON envelopes ``{"schema": "agentv.mailbox/1", "kind", "body"}``.

The envelope and the bodies are pydantic models (``Envelope``, ``RequestBody``,
``ResultBody``): they check what arrives and write what leaves, field for field in the order
the wire has always had. ``EvalRequest`` bodies carry the sample; its typed input and
expected value are written as JSON (dataclasses and pydantic models as objects) and rebuilt
on the worker with the Dataset's own coercion (``tasks.api.dataset.coerce``), so
``Dataset.load`` and a request agree on every type. ``EvalResult`` bodies carry the score,
latency, error and the agentv result record; every payload is redacted before it leaves
the process.
"""
from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field
from pydantic_core import PydanticSerializationError, to_jsonable_python

from agentv.evaluators.report import EvalResult
from agentv.evaluators.score import Score
from agentv.tasks.api.dataset import Sample, coerce
from agentv.tasks.load.redact import redact

SCHEMA: Literal["agentv.mailbox/1"] = "agentv.mailbox/1"
InputT = TypeVar("InputT")
ExpectedT = TypeVar("ExpectedT")


@dataclass(frozen=True, slots=True)
class EvalRequest(Generic[InputT, ExpectedT]):
    """A request to evaluate one sample."""

    sample: Sample[InputT, ExpectedT]
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    created_at: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat())


class Wire(BaseModel):
    """A JSON object of the mailbox protocol (ids may arrive as numbers)."""

    model_config = ConfigDict(coerce_numbers_to_str=True, frozen=True)


class Envelope(Wire):
    schema_: Literal["agentv.mailbox/1"] = Field(alias="schema")
    kind: str
    body: Any


class SampleBody(Wire):
    id: str
    input: Any
    expected: Any


class RequestBody(Wire):
    request_id: str
    created_at: str
    sample: SampleBody


class ScoreBody(Wire):
    value: float
    passed: bool
    reason: str = ""


class ResultBody(Wire):
    sample_id: str
    request_id: str | None = None
    score: ScoreBody
    latency_ms: float
    error: str | None = None
    record: dict[str, Any] | None = None


@dataclass(frozen=True)
class Undecodable:
    """A received payload its codec could not read (handed to the receiver, which reports
    and dead-letters it)."""

    payload: str
    error: str

    def ids(self) -> tuple[str, str] | None:
        """(sample id, request id) when the payload is an eval request's envelope."""
        try:
            body = json.loads(self.payload)["body"]
            return str(body["sample"]["id"]), str(body["request_id"])
        except (ValueError, KeyError, TypeError):
            return None


def decode_or_undecodable(codec: "Codec", payload: str) -> Any:
    try:
        return codec.decode(payload)
    except (ValueError, KeyError, TypeError) as err:  # pydantic's errors are ValueErrors
        return Undecodable(payload, f"undecodable message: {type(err).__name__}: {err}")


class Codec(Protocol):
    kind: str

    def encode(self, body: Any) -> str: ...

    def decode(self, payload: str) -> Any: ...


def to_jsonable(value: Any) -> Any:
    """A typed value as plain JSON data (dataclasses and pydantic models as objects)."""
    try:
        return to_jsonable_python(value)
    except PydanticSerializationError:
        raise TypeError(f"cannot send a {type(value).__name__} through a mailbox "
                        "(not JSON data)") from None


def _envelope(kind: str, body: Any) -> str:
    """The envelope's JSON (``Envelope``'s fields; the body already checked by its model)."""
    data = {"schema": SCHEMA, "kind": kind,
            "body": body.model_dump() if isinstance(body, Wire) else body}
    return redact(json.dumps(data, ensure_ascii=False, default=str))


def _open(payload: str, kind: str) -> Any:
    data = json.loads(payload)
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ValueError(f"not an {SCHEMA} message: {payload[:80]!r}")
    if data.get("kind") != kind:
        raise ValueError(f"expected a {kind!r} message, got {data.get('kind')!r}")
    return Envelope.model_validate(data).body


class JsonCodec:
    """Any JSON data."""

    kind = "json"

    def encode(self, body: Any) -> str:
        return _envelope(self.kind, to_jsonable(body))

    def decode(self, payload: str) -> Any:
        return _open(payload, self.kind)


class EvalRequestCodec:
    """``EvalRequest`` ↔ JSON; the sample is rebuilt as ``input_type`` / ``expected_type``."""

    kind = "eval_request"

    def __init__(self, input_type: Any = Any, expected_type: Any = Any):
        self.input_type, self.expected_type = input_type, expected_type

    def encode(self, body: EvalRequest) -> str:
        sample = body.sample
        return _envelope(self.kind, RequestBody(
            request_id=body.request_id, created_at=body.created_at,
            sample=SampleBody(id=sample.id, input=to_jsonable(sample.input),
                              expected=to_jsonable(sample.expected))))

    def decode(self, payload: str) -> EvalRequest:
        body = RequestBody.model_validate(_open(payload, self.kind))
        raw = body.sample
        where = f"request {body.request_id} sample {raw.id}"
        sample = Sample(id=raw.id, input=coerce(raw.input, self.input_type, f"{where}: input"),
                        expected=coerce(raw.expected, self.expected_type, f"{where}: expected"))
        return EvalRequest(sample=sample, request_id=body.request_id, created_at=body.created_at)


class EvalResultCodec:
    """``EvalResult`` ↔ JSON (with its agentv result record)."""

    kind = "eval_result"

    def encode(self, body: EvalResult) -> str:
        score = body.score
        return _envelope(self.kind, ResultBody(
            sample_id=body.sample_id, request_id=body.request_id,
            score=ScoreBody(value=score.value, passed=score.passed, reason=score.reason),
            latency_ms=body.latency_ms, error=body.error, record=body.record))

    def decode(self, payload: str) -> EvalResult:
        body = ResultBody.model_validate(_open(payload, self.kind))
        score = body.score
        return EvalResult(sample_id=body.sample_id,
                          score=Score(score.value, score.passed, score.reason),
                          latency_ms=body.latency_ms, error=body.error, record=body.record,
                          request_id=body.request_id)
