"""The client side of the typed API's mailboxes: open them by URL, submit a dataset,
collect the results into an ``EvalReport``.

Mailbox URLs: ``redis://HOST:PORT/DB#NAME`` (``RedisMailbox``, shared by processes and
machines) or ``memory://NAME`` (``InMemoryMailbox``, one per name in a ``MailboxClient``).
``open_mailbox``, ``request_mailbox`` and ``result_mailbox`` open through the client of the
current context (``with MailboxClient():``, else the context's own, made at first use as
``decimal.getcontext()`` is), so a name opened twice is one mailbox.
"""
from __future__ import annotations

import sys
import threading
import time
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Callable

from agentv.evaluators.report import EvalReport, EvalResult
from agentv.tasks.api.dataset import Dataset
from agentv.tasks.api.mailbox import DEFAULT_MAX_DELIVERIES, InMemoryMailbox, Mailbox, Message
from agentv.tasks.api.mailbox_codec import (
    Codec,
    EvalRequest,
    EvalRequestCodec,
    EvalResultCodec,
    Undecodable,
)
from agentv.tasks.api.reconnect import Outage, reconnecting
from agentv.tasks.api.results_file import ResultsFile
from agentv.tasks.results.tally_samples import report_of


def _log(message: str) -> None:
    print(message, file=sys.stderr)


class MailboxClient:
    """Opens mailboxes by URL and holds its ``memory://`` mailboxes (one per name)."""

    def __init__(self) -> None:
        self._memory: dict[str, InMemoryMailbox] = {}
        self._lock = threading.Lock()
        self._tokens: list[Any] = []

    def open(self, url: str, codec: Codec, max_deliveries: int = DEFAULT_MAX_DELIVERIES
             ) -> Mailbox:
        if url.startswith("memory://"):
            name = url.removeprefix("memory://")
            with self._lock:
                mailbox = self._memory.get(name)
                if mailbox is None:
                    mailbox = self._memory[name] = InMemoryMailbox(name, codec, max_deliveries)
            return mailbox
        from agentv.tasks.api.mailbox_redis import RedisMailbox
        return RedisMailbox.from_url(url, codec, max_deliveries)

    def __enter__(self) -> MailboxClient:
        self._tokens.append(_CLIENT.set(self))
        return self

    def __exit__(self, *exc: Any) -> None:
        _CLIENT.reset(self._tokens.pop())
        with self._lock:
            self._memory.clear()


_CLIENT: ContextVar[MailboxClient | None] = ContextVar("agentv_mailbox_client", default=None)


def mailbox_client() -> MailboxClient:
    """The current context's client (made now when it has none)."""
    client = _CLIENT.get()
    if client is None:
        client = MailboxClient()
        _CLIENT.set(client)
    return client


def open_mailbox(url: str, codec: Codec, max_deliveries: int = DEFAULT_MAX_DELIVERIES
                 ) -> Mailbox:
    return mailbox_client().open(url, codec, max_deliveries)


def request_mailbox(url: str, input_type: Any = Any, expected_type: Any = Any,
                    max_deliveries: int = DEFAULT_MAX_DELIVERIES) -> Mailbox[EvalRequest]:
    """The requests mailbox; samples are rebuilt as ``input_type`` / ``expected_type``."""
    return open_mailbox(url, EvalRequestCodec(input_type, expected_type), max_deliveries)


def result_mailbox(url: str) -> Mailbox[EvalResult]:
    return open_mailbox(url, EvalResultCodec())


def submit_dataset(dataset: Dataset, requests: Mailbox[EvalRequest]) -> list[str]:
    """Send one ``EvalRequest`` per sample; returns the request ids."""
    ids = []
    for sample in dataset:
        request = EvalRequest(sample=sample)
        requests.send(request)
        ids.append(request.request_id)
    return ids


def collect_results(results: Mailbox[EvalResult], expected_count: int, *,
                    timeout_seconds: float = 300, visibility_timeout: float = 30.0,
                    out: str | Path | None = None,
                    log: Callable[[str], None] = _log) -> EvalReport:
    """Receive results until ``expected_count`` distinct requests have answered or the
    timeout passes (then the report holds what arrived). A result delivered twice (a worker
    that lost its lease, then finished) counts once.

    A result is acknowledged only once it is safe: with ``out``, after its record is appended
    to that JSONL file (results already in it count, so a collection that failed is resumed);
    without, after the whole report is built. An error in between leaves it in the mailbox,
    delivered again. A mailbox server outage is waited out (reconnecting with backoff)."""
    deadline = time.monotonic() + timeout_seconds
    mailbox = reconnecting(results, Outage(log, "collect_results"),
                           give_up=lambda: time.monotonic() > deadline)
    with ResultsFile(out) as kept:
        held: list[Message[EvalResult]] = []
        while len(kept.collected) < expected_count:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            for message in mailbox.receive(max_messages=100,
                                           wait_time_seconds=min(remaining, 5.0),
                                           visibility_timeout=visibility_timeout):
                result = message.body
                if isinstance(result, Undecodable):
                    message.mailbox.dead_letter(message, result.error)
                    continue
                kept.add(result)
                if out is None:
                    held.append(message)
                else:
                    _acknowledge(message)
        report = report_of(kept.collected.values())
        for message in held:  # the report is built: they are safe with the caller
            _acknowledge(message)
        return report


def _acknowledge(message: Message[EvalResult]) -> None:
    """Acknowledge a kept result; if the server is gone past the deadline it stays in the
    mailbox, and a later collection finds it already kept (it counts once)."""
    try:
        message.acknowledge()
    except message.mailbox.outage_errors:
        pass
