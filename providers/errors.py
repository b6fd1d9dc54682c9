"""The error types every layer raises and catches (no project imports: any module may import
this one).

``ConfigError`` is a configuration or prerequisite error (one line, exit 2);
``ProviderError`` / ``ProviderTimeout`` a failed provider call (``retryable`` for transient
failures, retried by ``providers.llm.retry`` only).
"""
from __future__ import annotations

import difflib
from contextlib import AbstractContextManager
from typing import Any, Iterable


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


MAX_REPORTED = 50  # errors printed for one check; the rest are counted


class ConfigErrors(ConfigError):
    """Every configuration error one check found (a file's, a run's), reported together:
    one line each, at most ``MAX_REPORTED``, then ``... and N more``."""

    def __init__(self, errors: list[ConfigError]):
        self.errors = [e for err in errors for e in getattr(err, "errors", [err])]
        first = self.errors[0]
        super().__init__(first.message, first.where, first.field)

    def lines(self) -> list[str]:
        shown = [e.render() for e in self.errors[:MAX_REPORTED]]
        rest = len(self.errors) - len(shown)
        return shown + ([f"... and {rest} more"] if rest else [])


def error_lines(err: ConfigError) -> list[str]:
    """The lines a configuration error prints (``error: `` goes in front of each)."""
    return err.lines() if isinstance(err, ConfigErrors) else [err.render()]


class ErrorCollector:
    """Gathers the ConfigErrors of independent checks so all are reported at once::

        errors = ErrorCollector()
        with errors.check():
            parse_one_part()
        errors.raise_any()
    """

    def __init__(self) -> None:
        self.errors: list[ConfigError] = []
        self._check = _Kept(self)

    def check(self) -> AbstractContextManager[None]:
        """The block's ConfigError is kept (any other exception goes through)."""
        return self._check  # no state of its own: one for every block, nested ones too

    def raise_any(self) -> None:
        if len(self.errors) == 1:
            raise self.errors[0]
        if self.errors:
            raise ConfigErrors(self.errors)


class _Kept:
    """``with``: a ConfigError raised inside goes into the collector's ``errors`` (a class,
    not a generator: a loader runs ten of these a case)."""

    __slots__ = ("collector",)

    def __init__(self, collector: ErrorCollector) -> None:
        self.collector = collector

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, err: Any, tb: Any) -> bool:
        if kind is not None and issubclass(kind, ConfigError):
            self.collector.errors.append(err)
            return True
        return False


def did_you_mean(word: object, choices: Iterable[str]) -> str:
    """`` (did you mean 'expected_outcome'?)`` for a misspelt key or value, else ''."""
    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word, [c for c in choices if c != word], n=1, cutoff=0.75)
    return f" (did you mean '{close[0]}'?)" if close else ""


def unknown_key(key: object, place: str, choices: Iterable[str], where: str,
                warn: Any) -> None:
    """A key no reader takes: a near miss of one of ``choices`` (``evaluator`` for
    ``evaluators``, ``expected_outcom``) is an error saying which — ignoring it would change
    the score; any other is a warning (``warn(message)``), ignored."""
    hint = did_you_mean(key, choices)
    if hint:
        raise ConfigError(f"unknown key '{key}' in {place}{hint}", where)
    if warn is not None:
        warn(f"{where}: unknown key '{key}' in {place} (ignored)")
