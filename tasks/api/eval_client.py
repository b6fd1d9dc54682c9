"""The client side of the typed API's mailboxes: open them by URL, submit a dataset,
collect the results into an ``EvalReport``.

Mailbox URLs: ``redis://HOST:PORT/DB#NAME`` (``RedisMailbox``, shared by processes and
machines) or ``memory://NAME`` (``InMemoryMailbox``, one per name in a ``MailboxClient``).
``open_mailbox``, ``request_mailbox`` and ``result_mailbox`` open through the client of the
current context (``with MailboxClient():``, else the context's own, made at first use as
``decimal.getcontext()`` is), so a name opened twice is one mailbox.
"""
from __future__ import annotations

import threading
import time
from contextvars import ContextVar
from typing import Any

from evaluators.report import EvalReport, EvalResult
from tasks.api.dataset import Dataset
from tasks.api.mailbox import DEFAULT_MAX_DELIVERIES, InMemoryMailbox, Mailbox
from tasks.api.mailbox_codec import (Codec, EvalRequest, EvalRequestCodec, EvalResultCodec,
                                     Undecodable)
from tasks.results.tally_samples import report_of


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
        from tasks.api.mailbox_redis import RedisMailbox
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
                    timeout_seconds: float = 300, visibility_timeout: float = 30.0
                    ) -> EvalReport:
    """Receive results until ``expected_count`` distinct requests have answered or the
    timeout passes (then the report holds what arrived). A result delivered twice (a worker
    that lost its lease, then finished) counts once."""
    collected: dict[str, EvalResult] = {}
    deadline = time.monotonic() + timeout_seconds
    while len(collected) < expected_count:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        for message in results.receive(max_messages=100, wait_time_seconds=min(remaining, 5.0),
                                       visibility_timeout=visibility_timeout):
            result = message.body
            if isinstance(result, Undecodable):
                message.mailbox.dead_letter(message, result.error)
                continue
            collected.setdefault(result.request_id or result.sample_id, result)
            message.acknowledge()
    return report_of(collected.values())
