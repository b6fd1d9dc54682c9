"""``Mailbox[T]``: the message queue between the typed API's clients and its EvalLoop workers.

A mailbox sends bodies, hands them out with a visibility timeout (a received message is
invisible to other receivers until it is acknowledged, released with ``nack`` — optionally
after a delay — or its lease runs out, when it is delivered again), and moves a message
that keeps failing to its dead-letter queue. Bodies travel as JSON with a schema version
(``tasks.messages_codec``); ``InMemoryMailbox`` (one process) encodes them too, so it
behaves like ``RedisMailbox`` (``tasks.api.mailbox_redis``) byte for byte.
"""
from __future__ import annotations

import threading
import time
import uuid
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from agentv.tasks.api.mailbox_codec import Codec, JsonCodec, decode_or_undecodable

T = TypeVar("T")

DEFAULT_VISIBILITY_TIMEOUT = 60.0
DEFAULT_MAX_DELIVERIES = 5


@dataclass
class Message(Generic[T]):
    """One received message: ``body`` decoded (an ``Undecodable`` when its codec could not
    read it), ``delivery_count`` counting this delivery."""

    id: str
    body: T
    delivery_count: int
    mailbox: "Mailbox[T]" = field(repr=False)
    receipt: Any = field(default=None, repr=False)

    def acknowledge(self) -> None:
        self.mailbox.ack(self)

    ack = acknowledge

    def nack(self, delay_seconds: float = 0.0) -> None:
        self.mailbox.nack(self, delay_seconds)

    def extend(self, seconds: float) -> None:
        self.mailbox.extend(self, seconds)


class Mailbox(ABC, Generic[T]):
    """The protocol both mailboxes implement."""

    name: str
    codec: Codec
    max_deliveries: int
    # errors meaning "the server is unreachable for now" (retried by tasks.api.reconnect)
    outage_errors: tuple[type[BaseException], ...] = ()

    @abstractmethod
    def send(self, body: T, delay_seconds: float = 0.0) -> str:
        """Queue ``body``; it becomes visible after ``delay_seconds``. Returns its id."""

    @abstractmethod
    def receive(self, max_messages: int = 1, wait_time_seconds: float = 0.0,
                visibility_timeout: float = DEFAULT_VISIBILITY_TIMEOUT) -> list[Message[T]]:
        """Up to ``max_messages`` visible messages, waiting up to ``wait_time_seconds`` for
        the first; each stays invisible to others for ``visibility_timeout`` seconds."""

    @abstractmethod
    def ack(self, message: Message[T]) -> None:
        """Done with the message: it is deleted."""

    @abstractmethod
    def nack(self, message: Message[T], delay_seconds: float = 0.0) -> None:
        """Release the message: visible again after ``delay_seconds``."""

    @abstractmethod
    def extend(self, message: Message[T], seconds: float) -> None:
        """Keep the message invisible for ``seconds`` more (a long-running sample's lease)."""

    @abstractmethod
    def dead_letter(self, message: Message[T], reason: str) -> None:
        """Move the message to the dead-letter queue (with ``reason``); it is not redelivered."""

    @abstractmethod
    def dead_letters(self) -> list[dict[str, Any]]:
        """The dead-letter queue's entries: ``{id, body, deliveries, reason}`` (body as JSON)."""

    @abstractmethod
    def approximate_count(self) -> int:
        """Messages not yet acknowledged (visible, delayed or in flight)."""

    def __len__(self) -> int:
        return self.approximate_count()

    def close(self) -> None:
        """Release connections (the owner closes what it opens)."""

    def __enter__(self) -> "Mailbox[T]":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


@dataclass
class _Entry:
    payload: str
    deliveries: int = 0
    visible_at: float = 0.0


class InMemoryMailbox(Mailbox[T]):
    """A mailbox inside one process (local runs, tests): thread-safe, same semantics and
    wire format as the Redis one."""

    def __init__(self, name: str = "mailbox", codec: Codec | None = None,
                 max_deliveries: int = DEFAULT_MAX_DELIVERIES):
        self.name, self.codec, self.max_deliveries = name, codec or JsonCodec(), max_deliveries
        self._entries: dict[str, _Entry] = {}
        self._dead: list[dict[str, Any]] = []
        self._ready = threading.Condition()

    def send(self, body: T, delay_seconds: float = 0.0) -> str:
        message_id = uuid.uuid4().hex
        with self._ready:
            self._entries[message_id] = _Entry(self.codec.encode(body),
                                               visible_at=time.monotonic() + delay_seconds)
            self._ready.notify_all()
        return message_id

    def receive(self, max_messages: int = 1, wait_time_seconds: float = 0.0,
                visibility_timeout: float = DEFAULT_VISIBILITY_TIMEOUT) -> list[Message[T]]:
        deadline = time.monotonic() + wait_time_seconds
        with self._ready:
            while True:
                now = time.monotonic()
                taken = [(i, e) for i, e in self._entries.items() if e.visible_at <= now]
                taken = taken[:max(1, max_messages)]
                if taken or now >= deadline:
                    break
                upcoming = [e.visible_at for e in self._entries.values()]
                self._ready.wait(min([deadline] + upcoming) - now)
            for _, entry in taken:
                entry.deliveries += 1
                entry.visible_at = now + visibility_timeout
        return [Message(i, decode_or_undecodable(self.codec, e.payload), e.deliveries, self)
                for i, e in taken]

    def ack(self, message: Message[T]) -> None:
        with self._ready:
            self._entries.pop(message.id, None)

    def nack(self, message: Message[T], delay_seconds: float = 0.0) -> None:
        self._set_visible(message, time.monotonic() + delay_seconds)

    def extend(self, message: Message[T], seconds: float) -> None:
        self._set_visible(message, time.monotonic() + seconds)

    def _set_visible(self, message: Message[T], at: float) -> None:
        with self._ready:
            entry = self._entries.get(message.id)
            if entry is not None:
                entry.visible_at = at
                self._ready.notify_all()

    def dead_letter(self, message: Message[T], reason: str) -> None:
        with self._ready:
            entry = self._entries.pop(message.id, None)
            if entry is not None:
                self._dead.append({"id": message.id, "body": entry.payload,
                                   "deliveries": entry.deliveries, "reason": reason})

    def dead_letters(self) -> list[dict[str, Any]]:
        with self._ready:
            return list(self._dead)

    def approximate_count(self) -> int:
        with self._ready:
            return len(self._entries)
