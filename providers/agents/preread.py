"""The pre-read block of coding agents (codex, vscode): which files to open first.

Rendered from the typed request (``Request.question`` plus its ``guideline_paths`` and
``input_files``), never parsed back out of text: AgentV's structured block of ``file://``
links with a SHA-256 token of each file's content, then the user query.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

MISSING_RULE = "If any file is missing, reply with ERROR: missing-file <filename> and stop."


def unique_files(paths: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for p in paths:
        if p:
            seen.setdefault(str(Path(p).resolve()), None)
    return list(seen)


def sha256_file(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 16), b""):
            digest.update(chunk)
    return digest.hexdigest()


def linked_prompt(question: str, paths: list[str]) -> str:
    """VS Code: ``file://`` links with a SHA-256 token per file, then the task."""
    body = question.strip()
    files = [p for p in unique_files(paths) if Path(p).is_file()]
    if not files:
        return body
    lines = [f"* [{Path(p).name}]({Path(p).as_uri()}) — token `sha256:{sha256_file(p)}`"
             for p in files]
    return ("[[ ## mandatory_pre_read ## ]]\nRead every file below before answering; each "
            "token is the SHA-256 of the file's exact content.\n" + "\n".join(lines)
            + f"\n{MISSING_RULE}\n\n[[ ## user_query ## ]]\n{body}")
