"""The environment child processes (agents, code judges, healthchecks) start with.

Not the whole ``.env``: a child gets the OS environment agentv was started with, plus only
the ``.env`` variables it declares — a cli target's ``env`` mapping, a code judge's ``env``,
or the variables a provider is known to read (codex: ``OPENAI_API_KEY``…). ``.env`` files
are loaded into ``os.environ`` (litellm and ``${{ VAR }}`` read them there); the names they
added are kept by the context's secret registry (``providers.secrets``: the run's or the
client's) so children do not inherit them.
"""
from __future__ import annotations

import os
import re
from typing import Iterable, Mapping

from agentv.providers import secrets

_INTERP = re.compile(r"^\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$")


def mark_dotenv(names: Iterable[str]) -> None:
    """Names a ``.env`` file added to ``os.environ`` (not set in the OS environment)."""
    secrets.active().mark_dotenv(names)


def child_env(names: Iterable[str] = (), extra: Mapping[str, object] | None = None
              ) -> dict[str, str]:
    """OS environment + the ``.env`` variables in ``names`` + ``extra`` (``${{ VAR }}``
    values in ``extra`` are that variable's value)."""
    registry = secrets.current()
    hidden = (registry.dotenv_only if registry is not None else frozenset()) - set(names)
    env = {k: v for k, v in os.environ.items() if k not in hidden}
    for key, value in (extra or {}).items():
        text = str(value)
        match = _INTERP.match(text)
        env[str(key)] = os.environ.get(match.group(1), "") if match else text
    return env
