"""Preread blocks for coding agents: which files to open first, mirrored into a workspace.

``tasks.expand.agent_question`` already opens the question with a "Read these files first"
block of absolute paths; agents that work in their own workspace (codex) or read a prompt
file (vscode) replace that block with their own: workspace-relative paths of mirrored
copies, or ``file://`` links with SHA-256 tokens of each file's content.
"""
from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

_EXPAND_BLOCK = re.compile(r"\ARead these files first:\n(?:\* [^\n]*\n)*\n\[\[ ## Task ## \]\]\n")
MISSING_RULE = "If any file is missing, reply with ERROR: missing-file <filename> and stop."


def task_text(question: str) -> str:
    """The question without the generic preread block (the agent gets its own)."""
    return _EXPAND_BLOCK.sub("", question, count=1)


def unique_files(paths: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for p in paths:
        if p:
            seen.setdefault(str(Path(p).resolve()), None)
    return list(seen)


def mirror_files(paths: list[str], workspace: Path) -> dict[str, str]:
    """Copy each file into ``workspace`` (same basename; ``2/``, ``3/``… on clashes).
    Returns original path → path relative to the workspace; missing files are skipped."""
    mapping: dict[str, str] = {}
    taken: set[str] = set()
    for src in unique_files(paths):
        source = Path(src)
        if not source.is_file():
            continue
        rel, n = source.name, 1
        while rel in taken:
            n += 1
            rel = f"{n}/{source.name}"
        dest = workspace / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, dest)
        taken.add(rel)
        mapping[src] = rel
    return mapping


def workspace_prompt(question: str, mirrored: dict[str, str]) -> str:
    """Codex: open every mirrored file (paths relative to the working directory, or
    absolute), then the task."""
    body = task_text(question).strip()
    if not mirrored:
        return body
    listing = "\n".join(f"* {rel}" for rel in mirrored.values())
    return (f"[[ ## mandatory_pre_read ## ]]\nBefore anything else, open and read every file "
            f"below (relative paths are in your working directory):\n{listing}\n"
            f"{MISSING_RULE}\n\n[[ ## user_query ## ]]\n{body}")


def sha256_file(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 16), b""):
            digest.update(chunk)
    return digest.hexdigest()


def linked_prompt(question: str, paths: list[str]) -> str:
    """VS Code: ``file://`` links with a SHA-256 token per file, then the task."""
    body = task_text(question).strip()
    files = [p for p in unique_files(paths) if Path(p).is_file()]
    if not files:
        return body
    lines = [f"* [{Path(p).name}]({Path(p).as_uri()}) — token `sha256:{sha256_file(p)}`"
             for p in files]
    return ("[[ ## mandatory_pre_read ## ]]\nRead every file below before answering; each "
            "token is the SHA-256 of the file's exact content.\n" + "\n".join(lines)
            + f"\n{MISSING_RULE}\n\n[[ ## user_query ## ]]\n{body}")
