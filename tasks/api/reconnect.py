"""``ReconnectingMailbox``: a mailbox whose calls outlive an outage of its server.

A call that fails with one of the mailbox's ``outage_errors`` (Redis: connection refused or
reset, a timeout, ``LOADING`` while it replays its AOF) is retried after a capped exponential
backoff with jitter until it succeeds — the client reconnects on the next call — or the
caller gives up (``stop_waiting`` ends a ``receive`` with no messages; ``give_up`` re-raises
any other call). An outage is logged once, in one line, no traceback. The messages a
receive returns acknowledge, release and extend through the wrapper, so a worker that keeps
a sample through an outage acknowledges it afterwards: the outage is not a delivery.
"""
from __future__ import annotations

import random
import threading
import time
from typing import Any, Callable, TypeVar

from agentv.tasks.api.mailbox import DEFAULT_VISIBILITY_TIMEOUT, Mailbox, Message, T

R = TypeVar("R")


def _never() -> bool:
    return False


class Outage:
    """The outage state shared by the mailboxes of one process part (a worker's two): one
    log line when the server is first lost, none while it stays lost."""

    def __init__(self, log: Callable[[str], None], who: str = "agentv",
                 base_seconds: float = 0.05, cap_seconds: float = 2.0) -> None:
        self.log, self.who = log, who
        self.base_seconds, self.cap_seconds = base_seconds, cap_seconds
        self._lock = threading.Lock()
        self._down = False

    def failed(self, mailbox: Mailbox, err: BaseException) -> None:
        with self._lock:
            first, self._down = not self._down, True
        if first:
            self.log(f"{self.who}: mailbox {mailbox.name} unreachable ({type(err).__name__}: "
                     f"{err}); reconnecting with backoff")

    def recovered(self) -> None:
        self._down = False

    def delay(self, attempt: int) -> float:
        """Capped exponential backoff with equal jitter: in [d/2, d], d = base·2^attempt."""
        ceiling = min(self.cap_seconds, self.base_seconds * 2 ** min(attempt, 30))
        return ceiling / 2 + random.uniform(0, ceiling / 2)


class ReconnectingMailbox(Mailbox[T]):
    def __init__(self, inner: Mailbox[T], outage: Outage,
                 stop_waiting: Callable[[], bool] = _never,
                 give_up: Callable[[], bool] = _never) -> None:
        self.inner, self.outage = inner, outage
        self.stop_waiting, self.give_up = stop_waiting, give_up
        self.name, self.codec, self.max_deliveries = inner.name, inner.codec, inner.max_deliveries
        self.outage_errors = inner.outage_errors

    def _retry(self, call: Callable[[], R], stop: Callable[[], bool],
               fallback: Callable[[], R] | None = None) -> R:
        attempt = 0
        while True:
            try:
                value = call()
                self.outage.recovered()
                return value
            except self.outage_errors as err:
                self.outage.failed(self, err)
                pause_until = time.monotonic() + self.outage.delay(attempt)
                attempt += 1
                while True:
                    if stop():
                        if fallback is None:
                            raise
                        return fallback()
                    left = pause_until - time.monotonic()
                    if left <= 0:
                        break
                    time.sleep(min(left, 0.05))

    def send(self, body: T, delay_seconds: float = 0.0) -> str:
        return self._retry(lambda: self.inner.send(body, delay_seconds), self.give_up)

    def receive(self, max_messages: int = 1, wait_time_seconds: float = 0.0,
                visibility_timeout: float = DEFAULT_VISIBILITY_TIMEOUT) -> list[Message[T]]:
        def none() -> list[Message[T]]:
            return []
        messages = self._retry(
            lambda: self.inner.receive(max_messages, wait_time_seconds, visibility_timeout),
            lambda: self.stop_waiting() or self.give_up(), none)
        for message in messages:
            message.mailbox = self
        return messages

    def ack(self, message: Message[T]) -> None:
        self._retry(lambda: self.inner.ack(message), self.give_up)

    def nack(self, message: Message[T], delay_seconds: float = 0.0) -> None:
        self._retry(lambda: self.inner.nack(message, delay_seconds), self.give_up)

    def extend(self, message: Message[T], seconds: float) -> None:
        self._retry(lambda: self.inner.extend(message, seconds), self.give_up)

    def dead_letter(self, message: Message[T], reason: str) -> None:
        self._retry(lambda: self.inner.dead_letter(message, reason), self.give_up)

    def dead_letters(self) -> list[dict[str, Any]]:
        return self._retry(self.inner.dead_letters, self.give_up)

    def approximate_count(self) -> int:
        return self._retry(self.inner.approximate_count, self.give_up)

    def close(self) -> None:
        self.inner.close()


def reconnecting(mailbox: Mailbox[T], outage: Outage, stop_waiting: Callable[[], bool] = _never,
                 give_up: Callable[[], bool] = _never) -> Mailbox[T]:
    """``mailbox`` behind a ``ReconnectingMailbox`` (once: a wrapped one is re-wrapped on its
    inner mailbox, with these stop conditions)."""
    if isinstance(mailbox, ReconnectingMailbox):
        mailbox = mailbox.inner
    if not mailbox.outage_errors:
        return mailbox
    return ReconnectingMailbox(mailbox, outage, stop_waiting, give_up)
