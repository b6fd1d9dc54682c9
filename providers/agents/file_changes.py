"""What an agent changed in its workspace, as a unified diff (AgentV's ``file_changes``).

``snapshot(root)`` records every file under ``root`` (``.git`` folders skipped) before the
agent runs: its SHA-256 and, for text files up to ``KEEP_BYTES``, its content. ``diff(root,
before)`` compares the tree after the run and renders one ``diff --git`` block per created,
edited or deleted file (``--- /dev/null`` for created files, ``+++ /dev/null`` for deleted
ones), sorted by path, as ``git diff`` prints them; binary or large files show as
``Binary files … differ``. No git is needed, and checkouts inside the workspace are covered
like any other folder.
"""
from __future__ import annotations

import difflib
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

KEEP_BYTES = 256 * 1024
SKIP_DIRS = {".git"}


@dataclass(frozen=True)
class FileState:
    digest: str
    text: str | None  # None: binary or larger than KEEP_BYTES


def snapshot(root: str | Path) -> dict[str, FileState]:
    files: dict[str, FileState] = {}
    base = Path(root)
    for folder, dirs, names in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in names:
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue
            files[path.relative_to(base).as_posix()] = _state(path)
    return files


def _state(path: Path) -> FileState:
    data = path.read_bytes()
    text = None
    if len(data) <= KEEP_BYTES and b"\0" not in data:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
    return FileState(hashlib.sha256(data).hexdigest(), text)


def diff(root: str | Path, before: dict[str, FileState]) -> str:
    """The unified diff from ``before`` to the tree now ("" when nothing changed)."""
    after = snapshot(root)
    blocks = []
    for rel in sorted(set(before) | set(after)):
        old, new = before.get(rel), after.get(rel)
        if old is not None and new is not None and old.digest == new.digest:
            continue
        blocks.append(_block(rel, old, new))
    return "".join(blocks)


def _block(rel: str, old: FileState | None, new: FileState | None) -> str:
    head = [f"diff --git a/{rel} b/{rel}\n"]
    if old is None:
        head.append("new file mode 100644\n")
    elif new is None:
        head.append("deleted file mode 100644\n")
    a = f"a/{rel}" if old is not None else "/dev/null"
    b = f"b/{rel}" if new is not None else "/dev/null"
    if (old is not None and old.text is None) or (new is not None and new.text is None):
        return "".join(head) + f"Binary files {a} and {b} differ\n"
    lines = difflib.unified_diff(_lines(old), _lines(new), a, b, n=3)
    body = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in lines)
    if not body:  # e.g. an empty file created: git prints no hunk either
        return "".join(head)
    return "".join(head) + body


def _lines(state: FileState | None) -> list[str]:
    return (state.text or "").splitlines(keepends=True) if state is not None else []


def changed_paths(file_changes: str) -> dict[str, str]:
    """``{path: "created" | "edited" | "deleted"}`` read back from a diff made by ``diff``."""
    found: dict[str, str] = {}
    for block in file_changes.split("diff --git ")[1:]:
        first, _, rest = block.partition("\n")
        path = first.split(" b/", 1)[-1].strip()
        if rest.startswith("new file mode"):
            found[path] = "created"
        elif rest.startswith("deleted file mode"):
            found[path] = "deleted"
        else:
            found[path] = "edited"
    return found
