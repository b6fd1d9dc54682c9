"""The one results writer: append + flush each record as its case finishes.

JSONL (one object per line) or YAML (one document per record, ``---`` separated,
multi-line strings in literal block style). Every line is redacted before it is written.
A single writer in one event loop writes whole records with one ``write`` call, so
lines never interleave.
"""
from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

from providers.base import ConfigError
from tasks.redact import redact

FORMATS = ("jsonl", "yaml")


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise ConfigError(f"unknown output format '{fmt}' (expected one of: {', '.join(FORMATS)})",
                          None, "--output-format")
    return fmt


def default_results_path(fmt: str = "jsonl") -> Path:
    stamp = datetime.now().strftime("%Y-%m-%dT%H-%M-%S-%f")[:-3]
    return Path(".agentv") / "results" / f"eval_{stamp}.{fmt}"


def _yaml_dump(record: dict[str, Any]) -> str:
    import yaml

    class _Dumper(yaml.SafeDumper):
        pass

    def str_presenter(dumper: yaml.SafeDumper, data: str):
        style = "|" if "\n" in data else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)

    _Dumper.add_representer(str, str_presenter)
    return yaml.dump(json.loads(json.dumps(record, default=str)), Dumper=_Dumper,
                     sort_keys=False, allow_unicode=True, width=10_000)


def serialize(record: dict[str, Any], fmt: str) -> str:
    if fmt == "yaml":
        return "---\n" + _yaml_dump(record)
    return json.dumps(record, ensure_ascii=False, default=str) + "\n"


class ResultWriter:
    def __init__(self, path: str | Path, fmt: str = "jsonl", append: bool = False):
        self.path = Path(path)
        self.fmt = check_format(fmt)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "a" if append else "w", encoding="utf-8")
        self.count = 0

    def write(self, record: dict[str, Any]) -> None:
        text = redact(serialize(record, self.fmt))
        self._fh.write(text)
        self._fh.flush()
        self.count += 1

    def sync(self) -> None:
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.flush()
            self._fh.close()

    def __enter__(self) -> "ResultWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
