"""Prompt and trace dump files: safe, bounded, unique names, written scrubbed.

A name is a readable prefix (the eval id and target, reduced to ``[A-Za-z0-9._-]`` and
shortened) plus a short hash of everything that identifies the dump — the eval file, eval
id, target, trial and attempt — so ids that differ only in characters the file system
cannot take (``a/b``, ``a_b``, ``a b``, ``a:b``, ``a\\b``), ids of any length and the same id
in two files never share a file. Names stay well under the 255-byte limit.
"""
from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from agentv.providers.filenames import readable, short_hash
from agentv.tasks.load.redact import redact

log = logging.getLogger("agentv.dumps")
PREFIX_CHARS = 60
TARGET_CHARS = 30


def dump_name(file: str, eval_id: str, target: str, trial: int,
              attempt: int | None = None) -> str:
    """``<id>__<target>[_trial-N][_attempt-N]_<hash10>.json`` — at most ~130 characters."""
    parts = [f"{readable(eval_id, PREFIX_CHARS)}__{readable(target, TARGET_CHARS)}"]
    if trial:
        parts.append(f"trial-{trial}")
    if attempt is not None:
        parts.append(f"attempt-{attempt}")
    digest = short_hash([file, eval_id, target, trial, attempt])
    return "_".join(parts) + f"_{digest}.json"


def write_dump(directory: str | Path, name: str, data: dict[str, Any]) -> str | None:
    """Write one dump (scrubbed); returns its path, or None when it could not be written
    (the case is still recorded: a dump is a by-product)."""
    path = Path(directory) / name
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(redact(text), encoding="utf-8")
    except OSError as err:
        log.warning("could not write dump %s: %s", path, err.strerror or err)
        return None
    return str(path)
