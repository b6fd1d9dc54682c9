"""The pre-read block of coding agents (codex, vscode): which files to open first.

``tasks.expand.agent_question`` already opens the question with a "Read these files first"
block of absolute paths; codex and vscode replace it with AgentV's structured block:
``file://`` links with a SHA-256 token of each file's content, then the user query.
"""
from __future__ import annotations

import hashlib
import re
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
