"""The case table artifact: one row per case with what a reviewer needs to judge it in the
Prefect UI — score, verdict, hits, misses, short reasoning, and the case's or its
evaluators' errors. One table per eval file × target, keyed so its history is kept."""
from __future__ import annotations

import json
from typing import Any

from flows.naming import artifact_key, suite_name
from tasks.problems import evaluator_problems

REASONING_CHARS = 200
CASE_TABLE_COLUMNS = ["eval_id", "target", "trial", "case_key", "score", "verdict", "error",
                      "latency_ms", "reasoning", "hits", "misses", "evaluator_results"]


def _items(raw: Any) -> str:
    try:
        items = json.loads(raw) if isinstance(raw, str) else (raw or [])
    except ValueError:
        return ""
    return "; ".join(str(i) for i in items)


def short(text: Any, limit: int = REASONING_CHARS) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _errors(row: Any) -> str:
    parts = [str(row.error)] if isinstance(row.error, str) and row.error else []
    parts += [f"{p.evaluator}: {p.message}" for p in evaluator_problems(row.evaluator_results)
              if p.is_error]
    return short(" | ".join(parts), 300)


def _number(value: Any, digits: int) -> float | None:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return None if value != value else round(value, digits)


def case_rows(df) -> list[dict[str, Any]]:
    return [{"eval_id": r.eval_id, "trial": int(r.trial or 0), "score": round(float(r.score), 3),
             "verdict": r.verdict, "hits": short(_items(r.hits), 300),
             "misses": short(_items(r.misses), 300), "reasoning": short(r.reasoning),
             "error": _errors(r), "latency_ms": _number(r.latency_ms, 1)}
            for r in df.itertuples()]


def suite_of(case_key: Any) -> str:
    return suite_name(str(case_key).split("::")[0]) if isinstance(case_key, str) else "unknown"


def case_tables(df) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """(artifact key, description, rows) per eval file × target."""
    frame = df.assign(_suite=df["case_key"].map(suite_of), _target=df["target"].fillna(""))
    out = []
    for (suite, target), part in frame.groupby(["_suite", "_target"], sort=True):
        ordered = part.sort_values(["eval_id", "trial"], kind="stable")
        out.append((artifact_key("cases", [suite], [target]),
                    f"agentv cases: {suite} × {target} ({len(part)} case(s))",
                    case_rows(ordered)))
    return out
