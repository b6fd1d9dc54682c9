"""``RedisMailbox``: a mailbox on a Redis Stream, shared by any number of processes.

One stream per mailbox (``agentv:<name>``) read through the consumer group ``agentv``:
``receive`` reads new entries (``XREADGROUP``) and takes back entries whose lease ran out
(``XAUTOCLAIM`` with the visibility timeout as the minimum idle time, its cursor carried
from call to call — every receiver of a mailbox uses the same visibility timeout); a
receiver renews the lease of what it still holds (``XCLAIM … IDLE … JUSTID``). ``ack`` is
``XACK`` + ``XDEL``; ``nack`` re-adds the body (now, or after a delay through the sorted
set ``agentv:<name>:delayed``) with its delivery count; ``dead_letter`` moves it to the
stream ``agentv:<name>:dead``. Each of these is one Lua script that first checks the caller
still holds the message, so two workers never both release one message.
"""
from __future__ import annotations

import os
import socket
import time
import uuid
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from agentv.tasks.api.mailbox import (
    DEFAULT_MAX_DELIVERIES,
    DEFAULT_VISIBILITY_TIMEOUT,
    Mailbox,
    Message,
    T,
)
from agentv.tasks.api.mailbox_codec import Codec, JsonCodec, decode_or_undecodable

GROUP = "agentv"
_NOW = ("local t = redis.call('TIME') "
        "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) ")
_OWNED = ("local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1) "
          "if p[1] == nil or p[1][2] ~= ARGV[3] then return 0 end ")
# KEYS: stream, delayed | ARGV: body, deliveries, delay_ms, nonce
_SEND = _NOW + """
if tonumber(ARGV[3]) > 0 then
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]),
             cjson.encode({body=ARGV[1], deliveries=ARGV[2], nonce=ARGV[4]}))
else
  redis.call('XADD', KEYS[1], '*', 'body', ARGV[1], 'deliveries', ARGV[2])
end
return 1"""
# KEYS: stream, delayed | ARGV: group, id, consumer, body, deliveries, delay_ms, nonce
_NACK = _NOW + _OWNED + """
if tonumber(ARGV[6]) > 0 then
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[6]),
             cjson.encode({body=ARGV[4], deliveries=ARGV[5], nonce=ARGV[7]}))
else
  redis.call('XADD', KEYS[1], '*', 'body', ARGV[4], 'deliveries', ARGV[5])
end
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
redis.call('XDEL', KEYS[1], ARGV[2])
return 1"""
# KEYS: stream, dead | ARGV: group, id, consumer, body, deliveries, reason
_DEAD = _OWNED + """
redis.call('XADD', KEYS[2], '*', 'id', ARGV[2], 'body', ARGV[4], 'deliveries', ARGV[5],
           'reason', ARGV[6])
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
redis.call('XDEL', KEYS[1], ARGV[2])
return 1"""
# KEYS: stream | ARGV: group, id, consumer, idle_ms: renew the lease only while we hold it
_EXTEND = _OWNED + """
redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[3], 0, ARGV[2], 'IDLE', ARGV[4], 'JUSTID')
return 1"""
# KEYS: stream, delayed: move due delayed bodies into the stream
_PROMOTE = _NOW + """
local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 100)
for _, member in ipairs(due) do
  redis.call('ZREM', KEYS[2], member)
  local m = cjson.decode(member)
  redis.call('XADD', KEYS[1], '*', 'body', m['body'], 'deliveries', m['deliveries'])
end
return #due"""


def split_url(url: str) -> tuple[str, str]:
    """``redis://host:port/db#name`` → (connection URL, mailbox name). The URL's password
    is registered as a secret of this context's run first (masked in every output)."""
    from agentv.tasks.load.redact import register_url
    register_url(url)
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss", "unix") or not parts.fragment:
        raise ValueError(f"a mailbox URL looks like redis://HOST:PORT/DB#NAME, got {url!r}")
    return urlunsplit(parts._replace(fragment="")), parts.fragment


class RedisMailbox(Mailbox[T]):
    def __init__(self, name: str, client: Any, codec: Codec | None = None,
                 max_deliveries: int = DEFAULT_MAX_DELIVERIES):
        from redis.exceptions import ConnectionError, ResponseError, TimeoutError

        self.outage_errors = (ConnectionError, TimeoutError)  # LOADING is a ConnectionError
        self.name, self.client, self.codec = name, client, codec or JsonCodec()
        self.max_deliveries, self._owns_client = max_deliveries, False
        self.stream, self.delayed, self.dead = f"agentv:{name}", f"agentv:{name}:delayed", \
            f"agentv:{name}:dead"
        self.consumer = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._send, self._nack = client.register_script(_SEND), client.register_script(_NACK)
        self._dead, self._promote = client.register_script(_DEAD), client.register_script(_PROMOTE)
        self._extend, self._cursor = client.register_script(_EXTEND), "0-0"
        try:
            client.xgroup_create(self.stream, GROUP, id="0", mkstream=True)
        except ResponseError as err:
            if "BUSYGROUP" not in str(err):
                raise

    @classmethod
    def from_url(cls, url: str, codec: Codec | None = None,
                 max_deliveries: int = DEFAULT_MAX_DELIVERIES) -> "RedisMailbox":
        import redis

        address, name = split_url(url)
        mailbox = cls(name, redis.Redis.from_url(address, decode_responses=True), codec,
                      max_deliveries)
        mailbox._owns_client = True
        return mailbox

    def send(self, body: T, delay_seconds: float = 0.0) -> str:
        nonce = uuid.uuid4().hex
        self._send(keys=[self.stream, self.delayed],
                   args=[self.codec.encode(body), 0, int(delay_seconds * 1000), nonce])
        return nonce

    def receive(self, max_messages: int = 1, wait_time_seconds: float = 0.0,
                visibility_timeout: float = DEFAULT_VISIBILITY_TIMEOUT) -> list[Message[T]]:
        count, deadline = max(1, max_messages), time.monotonic() + wait_time_seconds
        while True:
            self._promote(keys=[self.stream, self.delayed])
            entries = self._reclaim(count, visibility_timeout)
            remaining = deadline - time.monotonic()
            if len(entries) < count:
                block = int(min(max(remaining, 0), 0.5) * 1000)
                read = self.client.xreadgroup(GROUP, self.consumer, {self.stream: ">"},
                                              count=count - len(entries), block=block or None)
                entries += [(i, f, 1) for _, items in read or [] for i, f in items]
            messages = [self._message(e, visibility_timeout) for e in entries]
            if messages or remaining <= 0:
                return messages

    def _reclaim(self, count: int, visibility_timeout: float) -> list[tuple[str, dict, int]]:
        claimed = self.client.xautoclaim(self.stream, GROUP, self.consumer,
                                         int(visibility_timeout * 1000), self._cursor,
                                         count=count)
        self._cursor = claimed[0]  # each call scans on where the last stopped (wraps at 0-0)
        entries = []
        for entry_id, fields in claimed[1]:
            if fields is None:
                continue
            pending = self.client.xpending_range(self.stream, GROUP, entry_id, entry_id, 1)
            entries.append((entry_id, fields, pending[0]["times_delivered"] if pending else 1))
        return entries

    def _message(self, entry: tuple[str, dict, int], lease: float) -> Message[T]:
        entry_id, fields, delivered = entry
        deliveries = int(fields.get("deliveries", 0)) + delivered
        body = decode_or_undecodable(self.codec, fields.get("body", ""))
        return Message(entry_id, body, deliveries, self, (fields, lease))

    def ack(self, message: Message[T]) -> None:
        pipe = self.client.pipeline(transaction=True)
        pipe.xack(self.stream, GROUP, message.id).xdel(self.stream, message.id).execute()

    def nack(self, message: Message[T], delay_seconds: float = 0.0) -> None:
        fields, _ = message.receipt
        self._nack(keys=[self.stream, self.delayed],
                   args=[GROUP, message.id, self.consumer, fields["body"], message.delivery_count,
                         int(delay_seconds * 1000), uuid.uuid4().hex])

    def extend(self, message: Message[T], seconds: float) -> None:
        _, lease = message.receipt
        idle = int(max(0.0, lease - seconds) * 1000)
        self._extend(keys=[self.stream], args=[GROUP, message.id, self.consumer, idle])

    def dead_letter(self, message: Message[T], reason: str) -> None:
        fields, _ = message.receipt
        self._dead(keys=[self.stream, self.dead],
                   args=[GROUP, message.id, self.consumer, fields.get("body", ""),
                         message.delivery_count, reason])

    def dead_letters(self) -> list[dict[str, Any]]:
        return [{"id": f.get("id", i), "body": f.get("body"), "deliveries": int(f["deliveries"]),
                 "reason": f.get("reason", "")} for i, f in self.client.xrange(self.dead)]

    def approximate_count(self) -> int:
        return int(self.client.xlen(self.stream)) + int(self.client.zcard(self.delayed))

    def purge(self) -> None:
        """Delete the mailbox's stream, delayed set and dead-letter stream."""
        self.client.delete(self.stream, self.delayed, self.dead)

    def close(self) -> None:
        if self._owns_client:
            self.client.close()
