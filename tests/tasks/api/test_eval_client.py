"""``memory://`` mailboxes belong to a ``MailboxClient``, not to the process: within one
client (the context's, or one opened with ``with MailboxClient():``) a name is one mailbox,
reachable from the threads the context starts; another client has its own. ``collect_results``
acknowledges a result only once it is kept (a real redis-server, AOF fsync'd always)."""
from __future__ import annotations

import asyncio
import json
import uuid
from typing import Iterator

import pytest

from agentv.evaluators import EvalResult, Score
from agentv.tasks.api import eval_client
from agentv.tasks.api.eval_client import (
    MailboxClient,
    collect_results,
    mailbox_client,
    open_mailbox,
    result_mailbox,
)
from agentv.tasks.api.mailbox_codec import JsonCodec
from agentv.tasks.results.write import ResultWriter
from tests.redis_server import redis_server


def test_a_name_is_one_mailbox_per_client():
    with MailboxClient() as client:
        box = open_mailbox("memory://shared", JsonCodec())
        assert mailbox_client() is client and client.open("memory://shared", JsonCodec()) is box
        with MailboxClient():
            assert open_mailbox("memory://shared", JsonCodec()) is not box
        assert open_mailbox("memory://shared", JsonCodec()) is box
        assert asyncio.run(asyncio.to_thread(open_mailbox, "memory://shared", JsonCodec())) is box
    assert MailboxClient().open("memory://shared", JsonCodec()) is not box


def test_leaving_a_client_lets_go_of_its_mailboxes():
    client = MailboxClient()
    with client:
        box = result_mailbox("memory://gone")
        assert open_mailbox("memory://gone", JsonCodec()) is box
    assert client.open("memory://gone", JsonCodec()) is not box


# collect_results acknowledges a result only once it is safe (issue 27): an error between
# receiving results and keeping them leaves them in the mailbox, and the next collection
# (on the same results file) has every result exactly once.

@pytest.fixture(scope="module")
def aof_redis(tmp_path_factory) -> Iterator[str]:
    with redis_server(tmp_path_factory.mktemp("redis-aof"), aof=True) as url:
        yield url


@pytest.fixture
def results(aof_redis):
    box = result_mailbox(f"{aof_redis}#res-{uuid.uuid4().hex[:8]}")
    for i in range(10):
        box.send(EvalResult(f"s{i}", Score(1.0, True, "ok"), 1.0, request_id=f"r{i}"))
    yield box
    box.purge()  # type: ignore[attr-defined]
    box.close()


def test_an_error_before_the_report_is_built_loses_no_result(results, monkeypatch):
    def broken(_results):
        raise RuntimeError("injected")
    monkeypatch.setattr(eval_client, "report_of", broken)
    with pytest.raises(RuntimeError, match="injected"):
        collect_results(results, 10, timeout_seconds=5, visibility_timeout=0.2)
    monkeypatch.undo()
    report = collect_results(results, 10, timeout_seconds=5, visibility_timeout=0.2)
    assert sorted(r.sample_id for r in report.results) == [f"s{i}" for i in range(10)]
    assert results.approximate_count() == 0


def test_a_failed_write_loses_nothing_and_the_file_has_each_result_once(results, tmp_path,
                                                                       monkeypatch):
    out, real_write, calls = tmp_path / "results.jsonl", ResultWriter.write, []

    def failing_fourth(self, record):
        calls.append(record["eval_id"])
        if len(calls) == 4:
            raise OSError(28, "No space left on device")
        return real_write(self, record)
    monkeypatch.setattr(ResultWriter, "write", failing_fourth)
    with pytest.raises(OSError, match="No space"):
        collect_results(results, 10, timeout_seconds=5, visibility_timeout=0.2, out=out)
    assert results.approximate_count() == 7  # the three written were acknowledged
    report = collect_results(results, 10, timeout_seconds=5, visibility_timeout=0.2, out=out)
    ids = [json.loads(line)["eval_id"] for line in out.read_text().splitlines()]
    assert sorted(ids) == [f"s{i}" for i in range(10)]  # each once
    assert sorted(r.sample_id for r in report.results) == sorted(ids)
    assert {r.request_id for r in report.results} == {f"r{i}" for i in range(10)}
    assert results.approximate_count() == 0
    again = collect_results(results, 10, timeout_seconds=5, out=out)  # all kept: no wait
    assert len(again.results) == 10 and len(out.read_text().splitlines()) == 10
