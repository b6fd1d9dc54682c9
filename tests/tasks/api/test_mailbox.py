"""Mailbox[T]: the in-memory and the Redis mailbox (a real redis-server) behave alike —
visibility timeout, ack, nack with delay, dead letters, counts — and typed samples
round-trip through the JSON envelope with the Dataset's coercion."""
from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass

import pytest
from pydantic import BaseModel

from agentv.evaluators import EvalResult, Score
from agentv.tasks.api.dataset import Sample
from agentv.tasks.api.eval_client import open_mailbox
from agentv.tasks.api.mailbox import InMemoryMailbox
from agentv.tasks.api.mailbox_codec import (
    SCHEMA,
    EvalRequest,
    EvalRequestCodec,
    EvalResultCodec,
    JsonCodec,
    Undecodable,
)
from agentv.tasks.api.mailbox_redis import RedisMailbox, split_url
from tests.redis_server import redis_url  # noqa: F401 - the session's redis-server


@dataclass(frozen=True)
class Problem:
    a: int
    b: int
    tags: tuple[str, ...] = ()


class Answer(BaseModel):
    value: int
    unit: str | None = None


@pytest.fixture(params=["memory", "redis"])
def make_mailbox(request, redis_url):  # noqa: F811
    opened = []

    def make(codec=None, max_deliveries=3):
        if request.param == "memory":
            return InMemoryMailbox("t", codec or JsonCodec(), max_deliveries)
        box = RedisMailbox.from_url(f"{redis_url}#t-{uuid.uuid4().hex[:8]}", codec,
                                    max_deliveries)
        opened.append(box)
        return box
    yield make
    for box in opened:
        box.purge()
        box.close()


def test_send_receive_ack_and_count(make_mailbox):
    box = make_mailbox()
    box.send({"n": 1})
    box.send({"n": 2})
    assert box.approximate_count() == 2 and len(box) == 2
    got = box.receive(max_messages=10, wait_time_seconds=1, visibility_timeout=30)
    assert sorted(m.body["n"] for m in got) == [1, 2]
    assert all(m.delivery_count == 1 for m in got)
    assert box.receive(max_messages=10, visibility_timeout=30) == []  # in flight: invisible
    for m in got:
        m.acknowledge()
    assert box.approximate_count() == 0


def test_an_unacknowledged_message_reappears_after_the_visibility_timeout(make_mailbox):
    box = make_mailbox()
    box.send("job")
    first = box.receive(wait_time_seconds=1, visibility_timeout=0.4)
    assert [m.body for m in first] == ["job"]
    started = time.monotonic()
    again = box.receive(wait_time_seconds=3, visibility_timeout=0.4)
    assert [m.body for m in again] == ["job"] and again[0].delivery_count == 2
    assert time.monotonic() - started >= 0.2


def test_extend_keeps_a_running_message_hidden(make_mailbox):
    box = make_mailbox()
    box.send("long")
    [message] = box.receive(wait_time_seconds=1, visibility_timeout=0.5)
    for _ in range(3):
        time.sleep(0.25)
        message.extend(0.5)
    assert box.receive(wait_time_seconds=0.1, visibility_timeout=0.5) == []
    message.ack()


def test_nack_with_delay_then_dead_letter(make_mailbox):
    box = make_mailbox(max_deliveries=2)
    box.send({"x": 1})
    [m1] = box.receive(wait_time_seconds=1, visibility_timeout=30)
    m1.nack(0.3)
    assert box.receive(visibility_timeout=30) == []  # not yet
    assert box.approximate_count() == 1  # delayed still counts
    [m2] = box.receive(wait_time_seconds=3, visibility_timeout=30)
    assert m2.body == {"x": 1} and m2.delivery_count == 2
    box.dead_letter(m2, "gave up")
    assert box.approximate_count() == 0
    [dead] = box.dead_letters()
    assert dead["deliveries"] == 2 and dead["reason"] == "gave up"
    assert json.loads(dead["body"]) == {"schema": SCHEMA, "kind": "json", "body": {"x": 1}}


def test_typed_requests_round_trip_through_the_dataset_coercion(make_mailbox):
    box = make_mailbox(EvalRequestCodec(Problem, Answer))
    request = EvalRequest(sample=Sample("p1", Problem(2, 3, ("x",)), Answer(value=5, unit="m")))
    box.send(request)
    [message] = box.receive(wait_time_seconds=1)
    assert message.body == request
    assert isinstance(message.body.sample.input, Problem)
    assert isinstance(message.body.sample.expected, Answer)


def test_results_round_trip(make_mailbox):
    box = make_mailbox(EvalResultCodec())
    result = EvalResult("s1", Score(0.5, False, "half"), 12.5, None, {"eval_id": "s1"}, "r1")
    box.send(result)
    [message] = box.receive(wait_time_seconds=1)
    got = message.body
    assert (got, got.request_id, got.record) == (result, "r1", {"eval_id": "s1"})


def test_a_wrong_typed_input_is_a_type_error_naming_the_sample():
    codec = EvalRequestCodec(Problem, int)
    payload = EvalRequestCodec().encode(EvalRequest(sample=Sample("s", {"a": "two"}, 1)))
    with pytest.raises(TypeError, match="sample s: input.a: expected int"):
        codec.decode(payload)
    with pytest.raises(ValueError, match="agentv.mailbox/1"):
        codec.decode('{"schema": "other/9", "kind": "eval_request", "body": {}}')


def test_an_undecodable_message_is_handed_over_as_such(redis_url):  # noqa: F811
    box = RedisMailbox.from_url(f"{redis_url}#poison", EvalRequestCodec(Problem, int))
    try:
        box.client.xadd(box.stream, {"body": "not json", "deliveries": 0})
        [message] = box.receive(wait_time_seconds=0.2)
        assert isinstance(message.body, Undecodable) and message.body.ids() is None
        message.mailbox.dead_letter(message, message.body.error)
        [dead] = box.dead_letters()
        assert "undecodable" in dead["reason"] and dead["body"] == "not json"
    finally:
        box.purge()
        box.close()


def test_a_worker_reports_a_request_of_the_wrong_type_as_an_error(redis_url):  # noqa: F811
    from agentv.tasks.api.eval_client import collect_results, request_mailbox, result_mailbox
    from agentv.tasks.api.evalloop import EvalLoop

    url = f"{redis_url}#typed-{uuid.uuid4().hex[:6]}"
    client_side = request_mailbox(url)  # no types: sends what it is given
    requests = request_mailbox(url, Problem, int)  # the worker's program's types
    results = result_mailbox(f"memory://{uuid.uuid4().hex[:6]}-res")
    try:
        client_side.send(EvalRequest(sample=Sample("p", {"a": "two", "b": 1}, 3)))
        EvalLoop(loop=lambda p: p.a + p.b, evaluator=lambda o, e: Score(1.0, True),
                 requests=requests, results=results, wait_time_seconds=0.1).run(until_empty=True)
        [result] = collect_results(results, 1, timeout_seconds=2).results
        assert result.sample_id == "p" and "input.a: expected int" in result.error
        assert "input.a" in requests.dead_letters()[0]["reason"]
    finally:
        requests.purge()
        requests.close(), client_side.close()



def test_mailbox_urls():
    assert split_url("redis://h:6379/0#req") == ("redis://h:6379/0", "req")
    with pytest.raises(ValueError, match="#NAME"):
        split_url("redis://h:6379/0")
    assert open_mailbox("memory://same", JsonCodec()) is open_mailbox("memory://same", JsonCodec())


@pytest.fixture
def redis_boxes(redis_url):  # noqa: F811
    """Three receivers (three workers) of one Redis mailbox."""
    url = f"{redis_url}#lease-{uuid.uuid4().hex[:6]}"
    boxes = [RedisMailbox.from_url(url) for _ in range(3)]
    yield boxes
    boxes[0].purge()
    for box in boxes:
        box.close()


def test_reclaim_reaches_expired_messages_behind_many_held_ones(redis_boxes):
    a, b, c = redis_boxes
    for i in range(15):
        a.send(i)
    held = a.receive(max_messages=12, wait_time_seconds=1, visibility_timeout=30)
    lost = b.receive(max_messages=3, wait_time_seconds=1, visibility_timeout=30)  # b "dies"
    assert len(held) == 12 and len(lost) == 3
    time.sleep(0.5)
    for m in held:
        m.extend(30)  # a is alive: its leases are renewed
    got = []
    deadline = time.monotonic() + 5
    while len(got) < 3 and time.monotonic() < deadline:
        got += c.receive(max_messages=1, wait_time_seconds=0.2, visibility_timeout=0.4)
    assert sorted(m.body for m in got) == sorted(m.body for m in lost)
    assert all(m.delivery_count == 2 for m in got)


def test_a_stale_holder_cannot_renew_a_lease_another_worker_took(redis_boxes):
    a, b, _ = redis_boxes
    a.send("x")
    [stale] = a.receive(wait_time_seconds=1, visibility_timeout=0.3)
    time.sleep(0.4)
    [taken] = b.receive(wait_time_seconds=1, visibility_timeout=0.3)
    stale.extend(30)
    stale.nack(0)  # neither renews nor releases b's message
    [pending] = b.client.xpending_range(b.stream, "agentv", "-", "+", 10)
    assert pending["consumer"] == b.consumer and taken.delivery_count == 2
    assert b.approximate_count() == 1
