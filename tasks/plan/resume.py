"""``--resume``: continue an interrupted run in the same results file.

The last line of a JSONL file may be torn (the process died mid-write): it is cut off.
A damaged line in the middle (two writers, a crash of an older version) is reported with
its line number, saved to ``<file>.torn`` and removed from the file; that case runs again.
Every complete record's ``case_key`` is marked done, so nothing is recorded twice.
An explicitly named file is resumed even when it is empty (what ``kill -9`` leaves before
the first record).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from providers.errors import ConfigError

RESULTS_DIR = Path(".agentv") / "results"


@dataclass
class Finished:
    keys: set[str] = field(default_factory=set)
    records: list[dict[str, Any]] = field(default_factory=list)
    repaired_bytes: int = 0
    torn_lines: list[int] = field(default_factory=list)


def resolve_resume_path(value: str, fmt: str) -> Path:
    """``latest`` → the newest results file of this format under .agentv/results/."""
    if value != "latest":
        path = Path(value)
        if not path.is_file():
            raise ConfigError("results file to resume not found", value, "--resume")
        return path
    found = sorted(RESULTS_DIR.glob(f"eval_*.{fmt}"), key=lambda p: p.stat().st_mtime)
    if not found:
        raise ConfigError(f"no results file to resume in {RESULTS_DIR}", None, "--resume")
    return found[-1]


def repair_torn_tail(path: Path) -> int:
    """Cut a partial last line; returns how many bytes were removed."""
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return 0
    keep = data.rfind(b"\n") + 1
    with open(path, "r+b") as fh:
        fh.truncate(keep)
    return len(data) - keep


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    return record if isinstance(record, dict) else None


def _jsonl_records(path: Path) -> tuple[list[dict[str, Any]], list[int]]:
    """The file's records and the numbers of its damaged lines, which are moved out of the
    file (into ``<file>.torn``) so every reader of the results sees whole records only."""
    records, torn, kept, bad = [], [], [], []
    for number, line in enumerate(path.read_bytes().splitlines(keepends=True), 1):
        if not line.strip():
            continue
        record = _parse(line)
        if record is None:
            torn.append(number)
            bad.append(b"%d: " % number + line.rstrip(b"\n") + b"\n")
        else:
            records.append(record)
            kept.append(line)
    if torn:
        _set_aside(path, kept, bad)
    return records, torn


def _set_aside(path: Path, kept: list[bytes], bad: list[bytes]) -> None:
    """Damaged parts go to ``<file>.torn`` (nothing is lost); the file keeps the rest."""
    with open(path.with_name(path.name + ".torn"), "ab") as fh:
        fh.write(b"".join(bad))
    with open(path, "r+b") as fh:
        fh.write(b"".join(kept))
        fh.truncate()


def _yaml_documents(path: Path) -> list[tuple[int, str]]:
    """(first line number, text) of each ``---`` document."""
    docs: list[tuple[int, list[str]]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(True), 1):
        if line.rstrip("\n") == "---" or not docs:
            docs.append((number, [line]))
        else:
            docs[-1][1].append(line)
    return [(start, "".join(lines)) for start, lines in docs]


def _yaml_records(path: Path) -> tuple[list[dict[str, Any]], list[int]]:
    """Like ``_jsonl_records``: a document that does not parse, or the last one cut off
    mid-line, is set aside and reported by its first line."""
    import yaml
    records, torn, kept, bad = [], [], [], []
    for start, text in _yaml_documents(path):
        body = text[4:] if text.startswith("---\n") else text
        try:
            doc = yaml.safe_load(body)
        except yaml.YAMLError:
            doc = None
        if isinstance(doc, dict) and text.endswith("\n"):
            records.append(doc)
            kept.append(("---\n" + body).encode("utf-8"))
        elif body.strip():
            torn.append(start)
            bad.append(f"{start}: {text.rstrip()}\n".encode("utf-8"))
    if torn:
        _set_aside(path, kept, bad)
    return records, torn


def load_finished(path: Path, fmt: str) -> Finished:
    repaired = repair_torn_tail(path) if fmt == "jsonl" else 0
    records, torn = (_jsonl_records if fmt == "jsonl" else _yaml_records)(path)
    keys = {r["case_key"] for r in records if isinstance(r.get("case_key"), str)}
    return Finished(keys=keys, records=records, repaired_bytes=repaired, torn_lines=torn)
