"""The run page's data: the case table first — one row per case (and trial), a cell per
target (verdict, score, the answer and the first failing evaluator's reason, short), Δ
between the first and last target, whether the case changed (targets disagree, or a
target's verdict differs from the baseline run's) — worst first; then each target's
numbers and the per-evaluator means lined up across targets (the statistics engine's
breakdown)."""
from __future__ import annotations

from typing import Any

from agentv.providers.printable import printable
from agentv.tasks.results.failures import reason
from agentv.tasks.results.measures import OVERALL
from agentv.tasks.results.tally import Tally

SHORT = 280  # characters of input, answer and reason in the table
SEARCHED = 4000  # characters of each text the search looks through
RANK = {"error": 0, "fail": 1, "borderline": 2, "pass": 3}


def short(text: Any, limit: int = SHORT) -> str:
    text = " ".join(str(text or "").split())
    return printable(text if len(text) <= limit else text[: limit - 1] + "…")


def case_reason(row: dict[str, Any]) -> str:
    """Why a case did not pass ('' when it passed): its error, else the failing evaluator."""
    if row.get("verdict") == "pass":
        return ""
    return reason(row, row.get("evaluator_results"))


def targets_of(rows: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(sorted(r.get("target") or "" for r in rows)))


def _cell(row: dict[str, Any], base: dict[tuple, dict[str, Any]]) -> dict[str, Any]:
    cell = {"v": row.get("verdict") or "", "s": row.get("score"),
            "a": short(row.get("candidate_answer")), "r": short(case_reason(row), 400)}
    before = base.get((row.get("eval_id"), row.get("target") or "", row.get("trial") or 0))
    if before:
        cell["bv"], cell["bs"] = before.get("verdict"), before.get("score")
    return cell


def _search_text(rows: list[dict[str, Any]]) -> str:
    parts = [str(rows[0].get("eval_id")), str(rows[0].get("question") or "")[:SEARCHED]]
    for row in rows:
        parts += [str(row.get("candidate_answer") or "")[:SEARCHED], case_reason(row),
                  str(row.get("target") or ""), str(row.get("verdict") or "")]
    return " ".join(" ".join(parts).split()).lower()


def _changed(cells: list[dict[str, Any] | None]) -> bool:
    verdicts = {c["v"] == "pass" for c in cells if c}
    moved = any(c and "bv" in c and (c["bv"] == "pass") != (c["v"] == "pass") for c in cells)
    return len(verdicts) > 1 or moved


def _delta(cells: list[dict[str, Any] | None]) -> float | None:
    scores = [c["s"] for c in cells if c and isinstance(c["s"], (int, float))]
    if len(cells) < 2 or not cells[0] or not cells[-1] or len(scores) < 2:
        return None
    return round(float(cells[-1]["s"]) - float(cells[0]["s"]), 4)


def case_rows(rows: list[dict[str, Any]], targets: list[str],
              base: dict[tuple, dict[str, Any]]) -> list[dict[str, Any]]:
    """One table row per (eval_id, trial), its cells in ``targets`` order, worst first."""
    grouped: dict[tuple[Any, int], dict[str, dict[str, Any]]] = {}
    for row in rows:
        key = (row.get("eval_id"), row.get("trial") or 0)
        grouped.setdefault(key, {})[row.get("target") or ""] = row
    out: list[dict[str, Any]] = []
    for (eval_id, trial), by_target in grouped.items():
        cells = [_cell(by_target[t], base) if t in by_target else None for t in targets]
        members = list(by_target.values())
        worst = min(RANK.get(c["v"], 1) for c in cells if c)
        out.append({"id": printable(eval_id), "t": trial, "q": short(members[0].get("question")),
                    "c": cells, "d": _delta(cells), "ch": _changed(cells), "w": worst,
                    "x": _search_text(members)})
    lowest = {id(r): min((c["s"] for c in r["c"] if c and c["s"] is not None), default=0)
              for r in out}
    out.sort(key=lambda r: (r["w"], lowest[id(r)], str(r["id"]), r["t"]))
    return out


def evaluator_means(breakdown: list[dict[str, Any]], targets: list[str]) -> list[dict]:
    """One row per evaluator: its mean, pass rate and n on each target (None: not run)."""
    by = {(r["target"] or "", r["evaluator"]): r for r in breakdown}
    names = list(dict.fromkeys(r["evaluator"] for r in breakdown if r["evaluator"] != OVERALL))
    return [{"name": printable(name), "cells": [
        {k: by[(t, name)][k] for k in ("mean", "pass_rate", "n", "error_rate")}
        if (t, name) in by else None for t in targets]} for name in [OVERALL, *names]]


def baseline_cells(rows: list[dict[str, Any]]) -> dict[tuple, dict[str, Any]]:
    return {(r.get("eval_id"), r.get("target") or "", r.get("trial") or 0): r for r in rows}


def run_data(summary: dict[str, Any], rows: list[dict[str, Any]],
             baseline: dict[str, Any] | None = None,
             baseline_rows: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The run page: ``summary`` (tasks.view.index), the run's rows, and its baseline's."""
    tally = Tally()
    for row in rows:
        tally.add(row)
    targets = targets_of(rows)
    table = case_rows(rows, targets, baseline_cells(baseline_rows or []))
    stats = tally.summary()
    return {"run": summary, "targets": targets, "rows": table,
            "evaluators": evaluator_means(tally.breakdown(), targets),
            "trials": any(r["t"] for r in table), "baseline": baseline,
            "ci95": stats.get("ci95"), "trial_stats": stats.get("trials"),
            "tokens": [stats.get("input_tokens"), stats.get("output_tokens")]}
