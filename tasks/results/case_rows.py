"""One case as a row of the case table artifact: verdict, score, each evaluator's score,
verdict and reasoning (a column each), the case's input, answer and expected outcome, hits,
misses, short reasoning and the case's or its evaluators' errors (what a reviewer needs in
the UI; the whole case is in its case details artifact when it failed).
Built from a row of the results schema (``tasks.results.frames.record_to_row``) as a sink
takes each record."""
from __future__ import annotations

import json
from typing import Any

from agentv.tasks.results.problems import evaluator_problems

REASONING_CHARS = 200
TEXT_CHARS = 160  # input, answer, expected outcome and each evaluator in the table
CASE_ROW_KEYS = ("eval_id", "trial", "score", "verdict", "hits", "misses", "reasoning", "error",
                 "latency_ms", "input", "answer", "expected", "evaluators")
FIRST = ("eval_id", "trial", "verdict", "score")  # the table's columns: the verdict first,
LAST = ("input", "answer", "expected", "reasoning", "hits", "misses", "error", "latency_ms")


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


def _evaluator_text(result: dict[str, Any]) -> str:
    """``0.25 fail: reasoning`` (``error: …`` when it erred)."""
    score = _number(result.get("score"), 2)
    why = (f"error: {result['error']}" if result.get("error") else
           result.get("reasoning") or "; ".join(str(m) for m in result.get("misses") or []))
    head = f"{'n/a' if score is None else f'{score:.2f}'} {result.get('verdict') or ''}".strip()
    return short(f"{head}: {why}" if why else head, TEXT_CHARS)


def evaluator_cells(results: Any) -> tuple[tuple[str, str], ...]:
    """(column name, text) per evaluator of the case: its name (else type), numbered when
    two share one."""
    if isinstance(results, str):
        try:
            results = json.loads(results)
        except ValueError:
            return ()
    cells: list[tuple[str, str]] = []
    for result in results or []:
        if isinstance(result, dict):
            name = str(result.get("name") or result.get("type") or "evaluator")
            taken = sum(1 for n, _ in cells if n == name or n.startswith(f"{name} #"))
            cells.append((f"{name} #{taken + 1}" if taken else name, _evaluator_text(result)))
    return tuple(cells)


def table_rows(rows: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    """Case rows (tuples of ``CASE_ROW_KEYS``) as the table artifact's rows: the verdict
    columns first, then one column per evaluator (``⚖ name``, the same in every row), then
    the case's text."""
    names: dict[str, None] = {}
    for row in rows:
        names.update((name, None) for name, _ in dict(zip(CASE_ROW_KEYS, row))["evaluators"])
    out = []
    for row in rows:
        case = dict(zip(CASE_ROW_KEYS, row))
        cells = dict(case["evaluators"])
        out.append({**{k: case[k] for k in FIRST},
                    **{f"⚖ {name}": cells.get(name, "") for name in names},
                    **{k: case[k] for k in LAST}})
    return out


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
            "latency_ms": _number(row.get("latency_ms"), 1),
            "input": short(row.get("question"), TEXT_CHARS),
            "answer": short(row.get("candidate_answer"), TEXT_CHARS),
            "expected": short(row.get("expected_outcome"), TEXT_CHARS),
            "evaluators": evaluator_cells(row.get("evaluators") if results is None
                                          else results)}
