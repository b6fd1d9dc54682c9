"""``--resume``: continue an interrupted run in the same results file.

The last line of a JSONL file may be torn (the process died mid-write): it is cut off.
Every complete record's ``case_key`` is marked done, so nothing is recorded twice.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from providers.base import ConfigError

RESULTS_DIR = Path(".agentv") / "results"


@dataclass
class Finished:
    keys: set[str] = field(default_factory=set)
    records: list[dict[str, Any]] = field(default_factory=list)
    repaired_bytes: int = 0


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


def _jsonl_records(path: Path) -> list[dict[str, Any]]:
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a damaged line in the middle: that case is simply run again
    return records


def _yaml_records(path: Path) -> list[dict[str, Any]]:
    import yaml
    text = path.read_text(encoding="utf-8")
    docs = text.split("\n---\n") if text.startswith("---\n") else [text]
    records, good = [], []
    for chunk in docs:
        body = chunk[4:] if chunk.startswith("---\n") else chunk
        try:
            doc = yaml.safe_load(body)
        except yaml.YAMLError:
            break  # a torn last document
        if isinstance(doc, dict):
            records.append(doc)
            good.append(chunk)
    repaired = "\n---\n".join(good)
    path.write_text(repaired + ("\n" if repaired and not repaired.endswith("\n") else ""),
                    encoding="utf-8")
    return records


def load_finished(path: Path, fmt: str) -> Finished:
    repaired = repair_torn_tail(path) if fmt == "jsonl" else 0
    records = _jsonl_records(path) if fmt == "jsonl" else _yaml_records(path)
    keys = {r["case_key"] for r in records if isinstance(r.get("case_key"), str)}
    return Finished(keys=keys, records=records, repaired_bytes=repaired)
