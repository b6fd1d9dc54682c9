"""The secret registry every sink scrubs with (lowest layer: anyone may import).

A ``SecretRegistry`` belongs to what runs: the ``agentv`` command, a launcher (``run_eval``,
``run_dataset``), a run (``flows.run.Run``), a Dask worker's batch, an ``EvalLoop``.
``scope(registry)`` makes it the registry of the code inside (a context variable: asyncio
tasks, ``asyncio.to_thread`` and Prefect's task runs inherit it); the module functions
(``add``, ``scrub``, ``cut``, ``tail``…) use the registry of the context they run in. A
context that has none gets its own at the first ``add`` (as ``decimal.getcontext()`` does).
Sinks that outlive a context (stdout, log handlers) hold the registry they were installed
with (``tasks.load.redact``).

Values are registered when targets and ``.env`` files are loaded (``tasks.load.redact``
decides *what* is secret); ``scrub`` replaces each registered value — and its JSON-escaped
and URL-encoded spellings — with ``***``, and then any run of 12 or more characters of one
(a partial echo: ``providers.secret_fragments``). ``cut``/``tail`` scrub BEFORE shortening, so a
key straddling the cut never leaks a prefix or suffix. The registry also keeps the names a
``.env`` file added to the environment (``dotenv_only``): child processes get them only when
they declare them (``providers.process.environment``).
"""
from __future__ import annotations

import json
import re
import threading
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterable, Iterator
from urllib.parse import quote, quote_plus

from agentv.providers.secret_fragments import FRAGMENT, FragmentIndex

MASK = "***"
MIN_LENGTH = 4


def _spellings(value: str) -> set[str]:
    return {value, json.dumps(value, ensure_ascii=False)[1:-1], json.dumps(value)[1:-1],
            quote(value, safe=""), quote_plus(value)}


class SecretRegistry:
    """Secret values (each spelling, longest first: a key containing another is masked
    whole) and the ``.env``-only variable names of one run or client."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: tuple[str, ...] = ()
        self._pattern: re.Pattern[str] | None = None  # one pass, whatever the count
        self._fragments = FragmentIndex(())  # runs of >= 12 characters of a secret
        self._dotenv: frozenset[str] = frozenset()

    @property
    def values(self) -> tuple[str, ...]:
        return self._values

    @property
    def dotenv_only(self) -> frozenset[str]:
        return self._dotenv

    def add(self, values: Iterable[Any]) -> None:
        """Register secret values (strings shorter than ``MIN_LENGTH`` are ignored)."""
        new = {s for v in values if isinstance(v, str) and len(v.strip()) >= MIN_LENGTH
               for s in _spellings(v) if len(s) >= MIN_LENGTH}
        self._grow(new)

    def merge(self, other: SecretRegistry) -> None:
        """Also hold what ``other`` holds (a worker's cached plan's secrets)."""
        self._grow(set(other.values))
        self.mark_dotenv(other.dotenv_only)

    def mark_dotenv(self, names: Iterable[str]) -> None:
        """Names a ``.env`` file added to ``os.environ`` (not the OS environment's own)."""
        with self._lock:
            self._dotenv = self._dotenv | frozenset(names)

    def clear(self) -> None:
        with self._lock:
            self._values, self._pattern, self._dotenv = (), None, frozenset()
            self._fragments = FragmentIndex(())

    def scrub(self, text: str) -> str:
        if not self._values:
            return text
        text = self._fragments.mask(text, MASK)  # values of >= 12 characters, and their runs
        pattern = self._pattern  # the shorter ones, whole
        return pattern.sub(MASK, text) if pattern is not None else text

    def scrub_obj(self, value: Any) -> Any:
        """``scrub`` every string inside dicts/lists/tuples (keys included)."""
        if not self._values:
            return value
        if isinstance(value, str):
            return self.scrub(value)
        if isinstance(value, dict):
            return {self.scrub_obj(k): self.scrub_obj(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(self.scrub_obj(v) for v in value)
        return value

    def _grow(self, new: set[str]) -> None:
        with self._lock:
            if new - set(self._values):
                self._values = tuple(sorted(set(self._values) | new, key=len, reverse=True))
                short = [v for v in self._values if len(v) < FRAGMENT]
                self._pattern = re.compile("|".join(map(re.escape, short))) if short else None
                self._fragments = FragmentIndex(self._values)


_ACTIVE: ContextVar[SecretRegistry | None] = ContextVar("agentv_secrets", default=None)


def current() -> SecretRegistry | None:
    """This context's registry, if it has one."""
    return _ACTIVE.get()


def active() -> SecretRegistry:
    """This context's registry (made now when it has none)."""
    registry = _ACTIVE.get()
    if registry is None:
        registry = SecretRegistry()
        _ACTIVE.set(registry)
    return registry


@contextmanager
def scope(registry: SecretRegistry | None = None) -> Iterator[SecretRegistry]:
    """Run the block with ``registry`` (default: this context's, else a new one)."""
    chosen = registry or _ACTIVE.get() or SecretRegistry()
    token = _ACTIVE.set(chosen)
    try:
        yield chosen
    finally:
        _ACTIVE.reset(token)


def add(values: Iterable[Any]) -> None:
    active().add(values)


def registered() -> tuple[str, ...]:
    registry = _ACTIVE.get()
    return registry.values if registry is not None else ()


def clear() -> None:
    """Forget every value of this context's registry (tests)."""
    active().clear()


def scrub(text: str) -> str:
    registry = _ACTIVE.get()
    return registry.scrub(text) if registry is not None else text


def scrub_obj(value: Any) -> Any:
    registry = _ACTIVE.get()
    return registry.scrub_obj(value) if registry is not None else value


def cut(text: str, limit: int) -> str:
    """The first ``limit`` characters of the scrubbed text."""
    return scrub(text)[:limit]


def tail(text: str, limit: int) -> str:
    """The last ``limit`` characters of the scrubbed text."""
    return scrub(text)[-limit:] if limit else ""
