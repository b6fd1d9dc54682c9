"""What is secret, and scrubbing every sink: every byte agentv writes passes through ``redact``.

The registry itself lives in ``providers.secrets`` (lowest layer, so providers scrub before
they cut an error body; one per run or client, reached through the context). This module
decides what goes in it, before any case runs, and binds the process-wide sinks (log
handlers, stdout/stderr) to it:

* every resolved setting a target marks secret (``Target.secrets``; ``secret_values``
  is the hook typed settings feed);
* for EVERY target of targets.yaml, used or not: the value of each ``${{ VAR }}`` and each
  bare ``ENV_NAME`` it references (settings, cli ``env``, healthcheck), and each literal
  value of a secret-looking key (``api_key``, ``token``…);
* every value loaded from a ``.env`` file, and OS environment variables whose name says
  secret (``secret_env_name``: a ``_``-separated part that is or ends with ``KEY``,
  ``TOKEN``, ``SECRET``, ``PASSWORD``, ``CREDENTIALS``, ``AUTH``… — not ``SSH_AUTH_SOCK``,
  ``XAUTHORITY``, ``KEYBOARD_*``) unless the value is short or an existing file's path.

Values of non-secret-looking names count from 8 characters, and plain numbers, booleans and
``null`` never count (``PORT=8080`` must not mask every 8080 in a record).
"""
from __future__ import annotations

import logging
import os
import re
import sys
from pathlib import Path
from typing import Any, Iterable

from agentv.providers import secrets as _registry
from agentv.providers.secret_fields import PLAIN, url_secrets
from agentv.providers.secrets import MASK, SecretRegistry  # noqa: F401
from agentv.providers.secrets import scrub as redact  # noqa: F401
from agentv.providers.secrets import scrub_obj as redact_obj  # noqa: F401

SECRET_NAME = re.compile(r"key|token|secret|password|passwd|credential|auth", re.I)
_INTERP = re.compile(r"\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")
_PLAIN = PLAIN  # numbers and booleans are never secrets
MIN_PLAIN_LENGTH = 8
MIN_ENV_SECRET_LENGTH = 6
_SECRET_PARTS = ("KEY", "TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWD",
                 "PASSPHRASE", "CREDENTIAL", "CREDENTIALS", "APIKEY", "PAT", "AUTHORIZATION")
NOT_SECRET_ENV = frozenset({  # names with a secret word that never hold a secret
    "SSH_AUTH_SOCK", "SSH_AGENT_PID", "XAUTHORITY", "GPG_AGENT_INFO", "GPG_TTY",
    "GNOME_KEYRING_CONTROL", "GNOME_KEYRING_PID", "KEYTIMEOUT", "PASSWORD_STORE_DIR",
    "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS", "GOOGLE_APPLICATION_CREDENTIALS",
    "AWS_SHARED_CREDENTIALS_FILE", "KRB5CCNAME", "TOKENIZERS_PARALLELISM"})


def register(values: Iterable[Any]) -> None:
    """Values known to be secret (a secret-marked setting, a key): from 4 characters."""
    _registry.add(v for v in values if isinstance(v, str) and not _PLAIN.match(v.strip()))


def register_loose(values: Iterable[Any]) -> None:
    """Values that may be secret (anything from .env or a referenced variable)."""
    register(v for v in values if isinstance(v, str) and len(v.strip()) >= MIN_PLAIN_LENGTH)


def secret_values(targets: Iterable[Any]) -> list[str]:
    """The hook typed settings feed: every secret value of these resolved targets, and the
    values of the environment variables their provider keeps credentials in (its facts'
    ``secret_env``: an agent CLI reads them itself)."""
    out: list[str] = []
    for target in targets:
        hook = getattr(target, "secret_values", None)
        out.extend(hook() if callable(hook) else getattr(target, "secrets", None) or [])
        out.extend(v for v in map(os.environ.get, _secret_env(target)) if v)
    return out


def _secret_env(target: Any) -> tuple[str, ...]:
    from agentv.providers.errors import ConfigError
    from agentv.providers.registry import facts
    try:
        return facts(str(getattr(target, "provider", ""))).secret_env
    except ConfigError:  # a typed API callable, or a kind reported elsewhere
        return ()


def _walk(value: Any, key: str, env, marked: list[str], loose: list[str]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _walk(v, str(k), env, marked, loose)
        return
    if isinstance(value, list):
        for v in value:
            _walk(v, key, env, marked, loose)
        return
    if not isinstance(value, str):
        return
    secret_key = bool(SECRET_NAME.search(key))
    names = _INTERP.findall(value) + ([value] if _ENV_NAME.match(value) else [])
    for name in names:
        resolved = env.get(name)
        if resolved:
            (marked if secret_key or SECRET_NAME.search(name) else loose).append(resolved)
    if secret_key and not names:
        marked.append(value)
    if "://" in value:
        more, maybe = url_secrets(value)
        marked.extend(more)
        loose.extend(maybe)


def targets_file_values(entries: Iterable[dict[str, Any]],
                        env=None) -> tuple[list[str], list[str]]:
    """(secret, maybe-secret) values referenced by raw targets.yaml entries."""
    env = os.environ if env is None else env
    marked: list[str] = []
    loose: list[str] = []
    for entry in entries:
        for key, value in entry.items():
            if key not in ("name", "provider", "judge_target", "$schema"):
                _walk(value, str(key), env, marked, loose)
    return marked, loose


def register_targets_file(entries: Iterable[dict[str, Any]], env=None) -> None:
    marked, loose = targets_file_values(entries, env)
    register(marked)
    register_loose(loose)


def register_dotenv(paths: Iterable[Path]) -> None:
    from agentv.tasks.load.dotenv_file import read_env_file
    for path in paths:
        values = read_env_file(path)
        register(v for k, v in values.items() if v and SECRET_NAME.search(k))
        register_loose(v for v in values.values() if v)


def secret_env_name(name: str) -> bool:
    """Whether an OS environment variable's name says it holds a secret: one of its parts
    (split at ``_``) is, or ends with, a secret word (``API_KEY``, ``GITHUB_TOKEN``,
    ``DB_PASSWORD``, ``AWS_SECRET_ACCESS_KEY``, ``OPENAI_APIKEY``, ``BASIC_AUTH``) — not
    ``KEYBOARD_LAYOUT``, ``XAUTHORITY`` or the known non-secrets of ``NOT_SECRET_ENV``."""
    upper = name.upper()
    if upper in NOT_SECRET_ENV:
        return False
    return any(part.endswith(_SECRET_PARTS) or part == "AUTH" or part == "PWD" and upper != "PWD"
               for part in upper.split("_"))


def secret_env_value(value: str) -> bool:
    """A value worth masking: not a short word (under ``MIN_ENV_SECRET_LENGTH``), not a
    number or boolean, not the path of an existing file or socket (``/tmp/ssh-…/agent.1``)."""
    value = value.strip()
    if len(value) < MIN_ENV_SECRET_LENGTH or _PLAIN.match(value):
        return False
    return not (value.startswith("/") and os.path.exists(value))


def register_environment(env=None) -> None:
    """Secret-named variables' values, and every URL-valued variable's credentials
    (``PREFECT_API_URL=https://user:pass@host/api``, ``REDIS_URL=redis://:pass@host``)."""
    env = os.environ if env is None else env
    register(v for k, v in env.items() if secret_env_name(k) and secret_env_value(v))
    register_url(*(v for v in env.values() if "://" in v))


def register_url(*urls: str) -> None:
    """A URL's userinfo, password and query values (``providers.secret_fields``)."""
    for url in urls:
        marked, loose = url_secrets(url)
        register(marked)
        register_loose(loose)


class BoundScrubber:
    """A sink that outlives a context (a log handler, stdout) scrubs with the registry it was
    installed with (``registry``; default: the installing context's), and with the
    registry of the context writing to it when that is another one."""

    def __init__(self, registry: SecretRegistry | None = None):
        self.registry = registry or _registry.active()

    def scrubbers(self) -> list[SecretRegistry]:
        here = _registry.current()
        held = [self.registry] if here is None or here is self.registry else [self.registry, here]
        return [r for r in held if r.values]

    def scrub(self, text: str, scrubbers: list[SecretRegistry]) -> str:
        for registry in scrubbers:
            text = registry.scrub(text)
        return text


class RedactingFilter(logging.Filter, BoundScrubber):
    """Attach to log handlers so secrets never reach a log line (message, args, traceback)."""

    def __init__(self, registry: SecretRegistry | None = None):
        logging.Filter.__init__(self)
        BoundScrubber.__init__(self, registry)

    def filter(self, record: logging.LogRecord) -> bool:
        scrubbers = self.scrubbers()
        if not scrubbers:
            return True
        message = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        record.msg, record.args = self.scrub(message, scrubbers), ()
        if record.exc_text:
            record.exc_text, record.exc_info = self.scrub(record.exc_text, scrubbers), None
        return True


def redact_log_handlers(registry: SecretRegistry | None = None) -> None:
    """Every handler of every configured logger (Prefect's API handler included) scrubs with
    ``registry`` (default: this context's)."""
    registry = registry or _registry.active()
    loggers = [logging.getLogger()] + [lg for lg in logging.root.manager.loggerDict.values()
                                       if isinstance(lg, logging.Logger)]
    for logger in loggers:
        for handler in logger.handlers:
            held = [f for f in handler.filters if isinstance(f, RedactingFilter)]
            for f in held:
                f.registry = registry  # a later run in this process: its registry
            if not held:
                handler.addFilter(RedactingFilter(registry))


class ScrubbingStream(BoundScrubber):
    """stdout/stderr wrapper: what the console shows is scrubbed too."""

    def __init__(self, stream, registry: SecretRegistry | None = None):
        super().__init__(registry)
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(self.scrub(text, self.scrubbers()) if isinstance(text, str) else text)
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def scrub_console(registry: SecretRegistry | None = None) -> None:
    """stdout and stderr scrub with ``registry`` (default: this context's)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if isinstance(stream, ScrubbingStream):
            stream.registry = registry or _registry.active()
        else:
            setattr(sys, name, ScrubbingStream(stream, registry))
