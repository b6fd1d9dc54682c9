"""Process-wide secret redaction: every byte agentv writes passes through ``redact``.

Targets register their resolved secret values (api keys, tokens) when they are
resolved; writers, dumps, logs and artifacts call ``redact(text)`` before writing.
"""
from __future__ import annotations

import logging

MASK = "***"
_secrets: set[str] = set()


def register(values: list[str]) -> None:
    _secrets.update(v for v in values if isinstance(v, str) and len(v) >= 4)


def redact(text: str) -> str:
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


class RedactingFilter(logging.Filter):
    """Attach to log handlers so secrets never reach a log line."""

    def filter(self, record: logging.LogRecord) -> bool:
        if _secrets:
            record.msg = redact(record.getMessage())
            record.args = ()
        return True
