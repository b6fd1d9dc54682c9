"""Summary statistics of a run, computed with pandas from the records.

``summarize`` takes slim rows (eval_id, target, trial, score, error, usage) so the
statistics are identical whatever the worker count or completion order.
"""
from __future__ import annotations

from typing import Any

BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
BIN_LABELS = ("[0.0, 0.2)", "[0.2, 0.4)", "[0.4, 0.6)", "[0.6, 0.8)", "[0.8, 1.0]")


def slim(record: dict[str, Any]) -> dict[str, Any]:
    usage = record.get("usage") or {}
    return {"eval_id": record.get("eval_id"), "target": record.get("target"),
            "trial": record.get("trial", 0), "score": float(record.get("score") or 0.0),
            "error": record.get("error"), "input_tokens": usage.get("input_tokens"),
            "output_tokens": usage.get("output_tokens"), "cost_usd": usage.get("cost_usd"),
            "judge_cost_usd": sum((r.get("usage") or {}).get("cost_usd") or 0.0
                                  for r in record.get("evaluator_results") or [])}


def histogram(scores) -> list[int]:
    counts = [0] * 5
    for s in scores:
        counts[min(int(s * 5), 4) if s >= 0 else 0] += 1
    return counts


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    import pandas as pd

    df = pd.DataFrame(rows, columns=["eval_id", "target", "trial", "score", "error",
                                     "input_tokens", "output_tokens", "cost_usd",
                                     "judge_cost_usd"])
    if df.empty:
        return {"total": 0, "errors": 0, "histogram": [0] * 5, "top": [], "bottom": []}
    df = df.sort_values(["eval_id", "target", "trial"], kind="stable")
    scores = df["score"].astype(float)
    ordered = df.sort_values(["score", "eval_id"], ascending=[False, True], kind="stable")
    label = lambda r: (r.eval_id if df["target"].nunique() == 1 else f"{r.eval_id} [{r.target}]")
    costs = pd.to_numeric(df["cost_usd"], errors="coerce")
    return {
        "total": int(len(df)),
        "errors": int(df["error"].notna().sum()),
        "mean": round(float(scores.mean()), 3),
        "median": round(float(scores.median()), 3),
        "min": round(float(scores.min()), 3),
        "max": round(float(scores.max()), 3),
        "std": round(float(scores.std(ddof=1)), 3) if len(df) >= 2 else None,
        "histogram": histogram(scores.tolist()),
        "top": [(label(r), round(r.score, 3)) for r in ordered.head(3).itertuples()],
        "bottom": [(label(r), round(r.score, 3)) for r in ordered.tail(3).iloc[::-1].itertuples()],
        "input_tokens": int(pd.to_numeric(df["input_tokens"], errors="coerce").sum()),
        "output_tokens": int(pd.to_numeric(df["output_tokens"], errors="coerce").sum()),
        "cost_usd": round(float(costs.sum()), 6) if costs.notna().any() else None,
        "judge_cost_usd": round(float(df["judge_cost_usd"].sum()), 6),
    }


def format_summary(summary: dict[str, Any], wall_s: float | None = None) -> str:
    lines = ["", "SUMMARY", f"  total cases: {summary['total']}   errors: {summary['errors']}"]
    if summary["total"]:
        std = "n/a" if summary["std"] is None else f"{summary['std']:.3f}"
        lines.append(f"  mean: {summary['mean']:.3f}   median: {summary['median']:.3f}   "
                     f"min: {summary['min']:.3f}   max: {summary['max']:.3f}   std: {std}")
        lines.append("  histogram:")
        width = max(summary["histogram"]) or 1
        for lbl, n in zip(BIN_LABELS, summary["histogram"]):
            lines.append(f"    {lbl}  {'#' * round(20 * n / width):<20} {n}")
        lines.append("  top: " + ", ".join(f"{e} ({s:.3f})" for e, s in summary["top"]))
        lines.append("  bottom: " + ", ".join(f"{e} ({s:.3f})" for e, s in summary["bottom"]))
        if summary.get("input_tokens") or summary.get("output_tokens"):
            cost = summary.get("cost_usd")
            lines.append(f"  tokens: {summary['input_tokens']} in / {summary['output_tokens']} out"
                         f"   cost: {'n/a' if cost is None else f'${cost:.6f}'}"
                         f"   judge cost: ${summary.get('judge_cost_usd') or 0:.6f}")
    if wall_s is not None:
        lines.append(f"  wall time: {wall_s:.2f}s")
    return "\n".join(lines)


def format_errors(records: list[dict[str, Any]]) -> str:
    failed = [r for r in records if r.get("error")]
    if not failed:
        return ""
    lines = ["", "ERRORS"]
    for r in sorted(failed, key=lambda r: (str(r.get("eval_id")), str(r.get("target")))):
        lines.append(f"  {r['eval_id']} [{r['target']}]: {r['error']}")
    return "\n".join(lines)
