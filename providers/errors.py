"""The error types every layer raises and catches (no project imports: any module may import
this one).

``ConfigError`` is a configuration or prerequisite error (one line, exit 2);
``ProviderError`` / ``ProviderTimeout`` a failed provider call (``retryable`` for transient
failures, retried by ``providers.llm.retry`` only).
"""
from __future__ import annotations

from typing import Any


class ConfigError(Exception):
    """A configuration or prerequisite error: reported as one line, exit code 2.

    ``where`` is ``file:line`` (or just a file) and ``field`` the offending key.
    """

    def __init__(self, message: str, where: str | None = None, field: str | None = None):
        self.message = message
        self.where = where
        self.field = field
        super().__init__(self.render())

    def render(self) -> str:
        prefix = f"{self.where}: " if self.where else ""
        fld = f"{self.field}: " if self.field else ""
        return f"{prefix}{fld}{self.message}"


class ProviderError(Exception):
    """A provider call failed. ``retryable`` marks transient failures (429, 5xx, timeouts,
    dropped connections); ``retry_after`` is the server's Retry-After in seconds."""

    def __init__(self, message: str, *, retryable: bool = False, status: int | None = None,
                 retry_after: float | None = None, details: dict[str, Any] | None = None):
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after
        self.details = details or {}


class ProviderTimeout(ProviderError):
    def __init__(self, message: str, **kw: Any):
        super().__init__(message, retryable=True, **kw)
