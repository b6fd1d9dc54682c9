"""The results' nested columns, stored natively: ``hits`` and ``misses`` as lists of strings
and each evaluator's result as a struct of the ``evaluators`` column — name, type, score,
weight, verdict, hits, misses, reasoning, error, warnings, its usage's input_tokens,
output_tokens and cost_usd, and ``extra``: the JSON of whatever else the result holds (the
judge's request, ``details``, a composite's member results). The Parquet file holds them
once; ``evaluator_results`` (the record's list, as JSON text) is derived from the structs
when a file is read, for the readers that take a record's results.

Files written before (schema 2: hits, misses and evaluator_results as JSON text, the
evaluators struct without warnings, usage and extra) are upgraded as they are read."""
from __future__ import annotations

import json
from typing import Any, Callable

USAGE = ("input_tokens", "output_tokens", "cost_usd")
# ``json.dumps(value, ensure_ascii=False, default=str)`` without a new encoder per call
dump_text = json.JSONEncoder(ensure_ascii=False, default=str).encode
NATIVE = ("name", "type", "score", "weight", "verdict", "hits", "misses", "reasoning",
          "error", "warnings", "usage")


def _plain(value: Any) -> Any:
    return None if value is None else str(value)


def number(value: Any, kind: type) -> Any:
    try:
        return None if value is None or value == "" else kind(value)
    except (TypeError, ValueError):
        return None


def to_struct(result: dict[str, Any], text: Callable[[Any], Any] = _plain) -> dict[str, Any]:
    """One evaluator result → its struct (``text``: each string, e.g. redacted)."""
    raw_usage = result.get("usage")
    usage: dict[str, Any] = raw_usage if isinstance(raw_usage, dict) else {}
    rest = {k: v for k, v in result.items() if k not in NATIVE}
    usage_rest = {k: v for k, v in usage.items() if k not in USAGE}
    if usage_rest or (raw_usage is not None and not usage):
        rest["usage"] = usage_rest if usage else raw_usage
    return {"name": text(result.get("name")), "type": text(result.get("type")),
            "score": number(result.get("score"), float),
            "weight": number(result.get("weight"), float), "verdict": text(result.get("verdict")),
            "hits": [text(str(h)) for h in result.get("hits") or []],
            "misses": [text(str(m)) for m in result.get("misses") or []],
            "reasoning": text(result.get("reasoning")), "error": text(result.get("error")),
            "warnings": [text(str(w)) for w in result.get("warnings") or []],
            "input_tokens": number(usage.get("input_tokens"), int),
            "output_tokens": number(usage.get("output_tokens"), int),
            "cost_usd": number(usage.get("cost_usd"), float),
            "extra": text(dump_text(rest)) if rest else None}


def from_struct(struct: dict[str, Any]) -> dict[str, Any]:
    """An evaluator struct → the result as the record held it (its keys, usage rebuilt)."""
    out = {k: struct.get(k) for k in ("name", "type", "score", "weight", "verdict", "hits",
                                      "misses", "reasoning")}
    if struct.get("error") is not None:
        out["error"] = struct["error"]
    if struct.get("warnings"):
        out["warnings"] = struct["warnings"]
    extra = json.loads(struct["extra"]) if struct.get("extra") else {}
    usage = {k: struct[k] for k in USAGE if struct.get(k) is not None}
    more = extra.pop("usage", None)
    if isinstance(more, dict):
        usage.update(more)
    if usage:
        out["usage"] = usage
    return {**out, **extra}


def results_json(structs: list[dict[str, Any]] | None) -> str | None:
    """The ``evaluator_results`` text of a row's evaluator structs."""
    if structs is None:
        return None
    return dump_text([from_struct(s) for s in structs])


def derived_results(evaluators: Any) -> Any:
    """The ``evaluator_results`` column (JSON text) of an ``evaluators`` column."""
    import pyarrow as pa
    return pa.array([results_json(v) for v in evaluators.to_pylist()], pa.string())


def _json_list(value: Any) -> list[str] | None:
    if value is None:
        return None
    try:
        items = json.loads(value) if isinstance(value, str) else value
    except ValueError:
        return [str(value)]
    return [str(i) for i in items] if isinstance(items, list) else [str(items)]


def upgraded_lists(column: Any) -> Any:
    """``hits``/``misses`` stored as JSON text (schema 2) → lists of strings."""
    import pyarrow as pa
    return pa.array([_json_list(v) for v in column.to_pylist()], pa.list_(pa.string()))


def _structs(text: Any) -> list[dict[str, Any]]:
    try:
        results = json.loads(text) if text else []
    except ValueError:
        return []
    return [to_struct(r) for r in results or [] if isinstance(r, dict)]


def upgraded_evaluators(results: Any, target: Any) -> Any:
    """The ``evaluators`` column of a schema-2 file, made again from its complete
    ``evaluator_results`` JSON text (its own structs lack warnings, usage and extra)."""
    import pyarrow as pa
    return pa.array([_structs(v) for v in results.to_pylist()], target)
