"""File names built from user data (eval ids, target names): safe, bounded, unique.

A readable prefix reduced to ``[A-Za-z0-9._-]`` and shortened, then a fixed suffix, then a
short hash of everything that identifies the file — so ids that differ only in characters a
file system cannot take (``a/b``, ``a_b``, ``a b``, ``a:b``, ``a\\b``), ids of any length and
equal ids from different files never share a name, and a name never starts with a dot.
"""
from __future__ import annotations

import hashlib
import json
import re
from typing import Any

READABLE_CHARS = 90
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def readable(text: str, limit: int = READABLE_CHARS) -> str:
    return _UNSAFE.sub("_", text).strip("._")[:limit] or "case"


def short_hash(identity: Any) -> str:
    blob = json.dumps(identity, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:10]


def bounded_name(prefix: str, suffix: str, identity: Any) -> str:
    """``<readable prefix>_<suffix>_<hash10>`` (no extension), at most ~140 characters."""
    return "_".join(p for p in (readable(prefix), suffix) if p) + f"_{short_hash(identity)}"
