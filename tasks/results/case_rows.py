"""One case as a row of the case table artifact: score, verdict, hits, misses, short
reasoning and the case's or its evaluators' errors (what a reviewer needs in the UI).
Built from a row of the results schema (``tasks.results.frames.record_to_row``) as a sink
takes each record."""
from __future__ import annotations

import json
from typing import Any

from tasks.results.problems import evaluator_problems

REASONING_CHARS = 200
CASE_ROW_KEYS = ("eval_id", "trial", "score", "verdict", "hits", "misses", "reasoning", "error",
                 "latency_ms")


def _items(raw: Any) -> str:
    try:
        items = json.loads(raw) if isinstance(raw, str) else (raw or [])
    except ValueError:
        return ""
    return "; ".join(str(i) for i in items)


def short(text: Any, limit: int = REASONING_CHARS) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _errors(error: Any, evaluator_results: Any) -> str:
    parts = [str(error)] if isinstance(error, str) and error else []
    parts += [f"{p.evaluator}: {p.message}" for p in evaluator_problems(evaluator_results)
              if p.is_error]
    return short(" | ".join(parts), 300)


def _number(value: Any, digits: int) -> float | None:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return None if value != value else round(value, digits)


def case_row(row: dict[str, Any], results: list[Any] | None = None) -> dict[str, Any]:
    """``row``: a row of the results schema; ``results``: its evaluator results, parsed
    (else read from the row's JSON)."""
    return {"eval_id": row.get("eval_id"), "trial": int(row.get("trial") or 0),
            "score": _number(row.get("score"), 3), "verdict": row.get("verdict"),
            "hits": short(_items(row.get("hits")), 300),
            "misses": short(_items(row.get("misses")), 300),
            "reasoning": short(row.get("reasoning")),
            "error": _errors(row.get("error"), row.get("evaluator_results") if results is None
                             else results),
            "latency_ms": _number(row.get("latency_ms"), 1)}
