"""Where a ``provider: cli`` target's command runs, as AgentV does it: in the eval file's
folder, or in ``cwd``; a relative ``cwd`` is resolved against the **eval file's folder**
(AgentV 4.42.4's ``normalizeCliTargetInput``; 1.5/2.6 alike), not against the targets file
or the current directory. Without an eval file (the typed API) a relative ``cwd`` is
resolved against the targets file's folder and no ``cwd`` means the current directory. A
folder that does not exist is a configuration error that says what it was resolved
against. The healthcheck's own ``cwd`` follows the same rule."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agentv.providers.base import ConfigError


def relative_dir(value: Any, where: str, name: str) -> str | None:
    """A ``cwd`` as written (resolved per eval file by ``resolve_cwd``)."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError("must be a directory path", where, name)
    return os.path.expanduser(value)


def resolve_cwd(cwd: str | None, eval_dir: str | None, targets_dir: str) -> str | None:
    if cwd is None:
        return eval_dir
    return str((Path(eval_dir or targets_dir) / cwd).resolve())


def cwd_origin(cwd: str | None, eval_dir: str | None, targets_dir: str,
               name: str = "cwd") -> str:
    """How a working directory came about, for messages ("" for an absolute ``cwd``)."""
    if cwd is None:
        return "the eval file's folder" if eval_dir else ""
    if os.path.isabs(cwd):
        return ""
    base = (f"the eval file's folder {eval_dir}" if eval_dir
            else f"the targets file's folder {Path(targets_dir).resolve()}")
    return f"{name} {cwd!r} is resolved against {base}"


def check_cwd(path: str | None, where: str, name: str = "cwd", origin: str = "") -> None:
    if path is not None and not Path(path).is_dir():
        raise ConfigError(f"directory does not exist: {path}"
                          + (f" ({origin})" if origin else ""), where, name)
