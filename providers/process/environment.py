"""The environment child processes (agents, code judges, healthchecks) start with: an
allow-list, never the parent's whole environment.

A child gets ``BASE`` (``PATH``, ``HOME``, the locale, ``TMPDIR``…) from the environment
agentv was started with, plus only what it declares: a cli target's ``env`` mapping, a code
judge's ``env``, the variables a provider is known to read (codex: ``OPENAI_API_KEY``…) and
the ``AGENTV_*`` values of the case. So the run's other secrets — every ``.env`` value, another
target's key, a cloud credential in the shell — never reach it. ``.env`` files are loaded into
``os.environ`` (litellm and ``${{ VAR }}`` read them there); the names they added are kept by
the context's secret registry (``providers.secrets``).
"""
from __future__ import annotations

import os
import re
from typing import Iterable, Mapping

from agentv.providers import secrets

_INTERP = re.compile(r"^\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$")
BASE = frozenset({"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM",
                  "TMPDIR", "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING", "PYTHONUTF8",
                  "AGENTV_KILL_GRACE_SECONDS", "NO_COLOR", "SSL_CERT_FILE", "SSL_CERT_DIR"})


def mark_dotenv(names: Iterable[str]) -> None:
    """Names a ``.env`` file added to ``os.environ`` (not set in the OS environment)."""
    secrets.active().mark_dotenv(names)


def base_env() -> dict[str, str]:
    """``BASE`` and the ``LC_*`` locale variables, as agentv has them."""
    registry = secrets.current()
    hidden = registry.dotenv_only if registry is not None else frozenset()
    return {k: v for k, v in os.environ.items()
            if (k in BASE or k.startswith("LC_")) and k not in hidden}


def child_env(names: Iterable[str] = (), extra: Mapping[str, object] | None = None
              ) -> dict[str, str]:
    """``base_env()`` + the variables in ``names`` (from the OS environment or ``.env``) +
    ``extra`` (``${{ VAR }}`` values in ``extra`` are that variable's value)."""
    env = base_env()
    for name in names:
        if name in os.environ:
            env[name] = os.environ[name]
    for key, value in (extra or {}).items():
        text = str(value)
        match = _INTERP.match(text)
        env[str(key)] = os.environ.get(match.group(1), "") if match else text
    return env
