"""JSONL datasets: one eval case per line (UTF-8, BOM allowed), plus the optional
``<name>.yaml`` sidecar holding the file-level keys. Every value keeps its JSONL line, so
errors name ``file:line``; NaN/Infinity and nesting deeper than ``MAX_DEPTH`` are errors."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentv.providers.errors import ConfigError
from agentv.tasks.load.yamlsrc import MAX_DEPTH, LineDict, LineList, load_yaml_file, read_text

EVAL_SCHEMA = "agentv-eval-v2"


def load_jsonl(p: Path) -> tuple[LineDict, list[int]]:
    """A JSONL dataset plus its optional ``<name>.yaml`` sidecar, as one eval-file mapping."""
    sidecar = next((s for s in (p.with_suffix(".yaml"), p.with_suffix(".yml")) if s.is_file()),
                   None)
    data = load_yaml_file(sidecar) if sidecar else LineDict()
    if not isinstance(data, dict):
        raise ConfigError("a JSONL sidecar must be a mapping", f"{sidecar}:1")
    if not isinstance(data, LineDict):
        data = LineDict(data)
    if sidecar:
        data.source = str(sidecar)
    cases, lines = read_cases(p)
    data["evalcases"] = cases
    data.setdefault("$schema", EVAL_SCHEMA)
    return data, lines


def read_cases(p: Path) -> tuple[LineList, list[int]]:
    """Each non-blank line's JSON object (every value keeping its line) and those lines."""
    cases, lines = LineList(), []
    text = read_text(p)
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        obj = _json_line(line, f"{p}:{n}")
        if not isinstance(obj, dict):
            raise ConfigError(f"each line must be a JSON object (an eval case), got "
                              f"{type(obj).__name__}", f"{p}:{n}")
        cases.append(_at_line(obj, n, f"{p}:{n}"))
        lines.append(n)
    cases.item_lines = list(lines)
    return cases, lines


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed (numbers must be finite)")


def _json_line(line: str, at: str) -> Any:
    try:
        return json.loads(line, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        raise ConfigError(f"invalid JSON: {err.msg} (column {err.colno})", at) from None
    except ValueError as err:
        raise ConfigError(str(err), at) from None
    except RecursionError:
        raise ConfigError(f"nested deeper than {MAX_DEPTH} levels", at) from None


def _at_line(obj: Any, n: int, at: str, depth: int = 0) -> Any:
    """JSON values as LineDict/LineList whose every position is JSONL line ``n``."""
    if depth > MAX_DEPTH:
        raise ConfigError(f"nested deeper than {MAX_DEPTH} levels", at)
    if isinstance(obj, dict):
        out = LineDict({k: _at_line(v, n, at, depth + 1) for k, v in obj.items()})
        out.line, out.key_lines = n, {k: n for k in obj}
        return out
    if isinstance(obj, list):
        seq = LineList(_at_line(v, n, at, depth + 1) for v in obj)
        seq.line, seq.item_lines = n, [n] * len(obj)
        return seq
    return obj
