"""Summary statistics of a run, computed with pandas from the records.

``summarize`` takes the results DataFrame (``load_results``; or slim rows: eval_id,
target, trial, score, error, usage) so the statistics are identical whatever the worker
count or completion order. ``breakdown`` is the per target × evaluator table.

    from tasks.results.stats import load_results
    load_results(".agentv/results/eval_….jsonl").score.mean()
"""
from __future__ import annotations

import json
import math
from typing import Any, Iterable

from tasks.results.problems import evaluator_error_count
from tasks.results.frames import load_results  # noqa: F401 - the documented one-line entry
from tasks.results.trials import mean_ci, shorten, trials_summary

BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
BIN_LABELS = ("[0.0, 0.2)", "[0.2, 0.4)", "[0.4, 0.6)", "[0.6, 0.8)", "[0.8, 1.0]")


def exact_mean(values: Iterable[float]) -> float:
    """The mean of the non-NaN ``values``, correctly rounded whatever their order
    (``math.fsum``): a run's streaming summary and a report's pandas summary of the same
    records agree to the last digit, so a rounded mean or a ``--fail-under`` gate never
    depends on the order cases finished in. NaN when there is none."""
    known = [v for v in values if v == v]
    return math.fsum(known) / len(known) if known else math.nan


def exact_std(values: Iterable[float]) -> float:
    """The sample standard deviation (ddof=1) of the non-NaN ``values``, order-independent
    like ``exact_mean``. NaN below two values."""
    known = [v for v in values if v == v]
    if len(known) < 2:
        return math.nan
    mean = math.fsum(known) / len(known)
    return math.sqrt(math.fsum((v - mean) ** 2 for v in known) / (len(known) - 1))


def histogram(scores) -> list[int]:
    counts = [0] * 5
    for s in scores:
        counts[min(int(s * 5), 4) if s >= 0 else 0] += 1
    return counts


SUMMARY_COLUMNS = ["eval_id", "dataset", "target", "trial", "score", "verdict", "error",
                   "latency_ms", "input_tokens", "output_tokens", "cost_usd", "judge_cost_usd",
                   "evaluator_results"]


def _frame(rows):
    import pandas as pd
    from evaluators.base import verdict_for
    if isinstance(rows, pd.DataFrame):
        return rows
    df = pd.DataFrame(rows, columns=["eval_id", "target", "trial", "score", "error",
                                     "input_tokens", "output_tokens", "cost_usd",
                                     "judge_cost_usd"])
    df["dataset"] = ""
    df["verdict"] = df["score"].map(verdict_for).where(df["error"].isna(), "error")
    return df


def summarize(rows) -> dict[str, Any]:
    import pandas as pd

    df = _frame(rows)
    if df.empty:
        return {"total": 0, "errors": 0, "evaluator_errors": 0, "histogram": [0] * 5,
                "top": [], "bottom": []}
    df = df.sort_values(["eval_id", "target", "trial"], kind="stable")
    scores = df["score"].astype(float)
    top, bottom = _extremes(df)
    costs = pd.to_numeric(df["cost_usd"], errors="coerce")
    return {
        "total": int(len(df)),
        "errors": int(df["error"].notna().sum()),
        "evaluator_errors": (int(df["evaluator_results"].map(evaluator_error_count).sum())
                             if "evaluator_results" in df else 0),
        "mean": round(exact_mean(scores.tolist()), 3),
        "median": round(float(scores.median()), 3),
        "min": round(float(scores.min()), 3),
        "max": round(float(scores.max()), 3),
        "std": round(exact_std(scores.tolist()), 3) if len(df) >= 2 else None,
        "histogram": histogram(scores.tolist()),
        "top": top,
        "bottom": bottom,
        "input_tokens": int(pd.to_numeric(df["input_tokens"], errors="coerce").sum()),
        "output_tokens": int(pd.to_numeric(df["output_tokens"], errors="coerce").sum()),
        "cost_usd": round(float(costs.sum()), 6) if costs.notna().any() else None,
        "judge_cost_usd": round(float(df["judge_cost_usd"].sum()), 6),
        "pass_rate": round(float(df["verdict"].eq("pass").mean()), 3),
        "ci95": _rounded(mean_ci(df)),
        "trials": trials_summary(df),
    }


def _extremes(df) -> tuple[list, list]:
    """Top and bottom 3 cases; with trials a case's score is its mean over its trials, so
    no case appears twice."""
    per_case = (df.assign(score=df["score"].astype(float))
                .groupby(["eval_id", "target"], sort=False, dropna=False)["score"].mean()
                .reset_index())
    one_target = df["target"].nunique() <= 1

    def label(r) -> str:
        return r.eval_id if one_target else f"{r.eval_id} [{r.target}]"
    ordered = per_case.sort_values(["score", "eval_id"], ascending=[False, True], kind="stable")
    n = min(3, (len(ordered) + 1) // 2)  # top and bottom never list a case twice
    top = [(label(r), round(r.score, 3)) for r in ordered.head(n).itertuples()]
    rest = ordered.iloc[n:]
    bottom = [(label(r), round(r.score, 3)) for r in rest.tail(3).iloc[::-1].itertuples()]
    return top, bottom


def _rounded(pair: tuple[float, float] | None) -> list[float] | None:
    return None if pair is None else [round(pair[0], 3), round(pair[1], 3)]


def format_summary(summary: dict[str, Any], wall_s: float | None = None) -> str:
    lines = ["", "SUMMARY", f"  total cases: {summary['total']}   errors: cases "
             f"{summary['errors']}, evaluators {summary.get('evaluator_errors', 0)}"]
    lines += [f"  note: {note}" for note in summary.get("notes") or []]
    if summary["total"]:
        std = "n/a" if summary["std"] is None else f"{summary['std']:.3f}"
        lines.append(f"  mean: {summary['mean']:.3f}   median: {summary['median']:.3f}   "
                     f"min: {summary['min']:.3f}   max: {summary['max']:.3f}   std: {std}")
        lines.append("  histogram:")
        width = max(summary["histogram"]) or 1
        for lbl, n in zip(BIN_LABELS, summary["histogram"]):
            lines.append(f"    {lbl}  {'#' * round(20 * n / width):<20} {n}")
        lines.append("  top: " + ", ".join(f"{e} ({s:.3f})" for e, s in summary["top"]))
        if summary["bottom"]:
            lines.append("  bottom: " + ", ".join(f"{e} ({s:.3f})" for e, s in summary["bottom"]))
        lines.append(_pass_line(summary))
        lines.extend(_trial_lines(summary.get("trials")))
        if summary.get("input_tokens") or summary.get("output_tokens"):
            cost = summary.get("cost_usd")
            lines.append(f"  tokens: {summary['input_tokens']} in / {summary['output_tokens']} out"
                         f"   cost: {'n/a' if cost is None else f'${cost:.6f}'}"
                         f"   judge cost: ${summary.get('judge_cost_usd') or 0:.6f}")
    if wall_s is not None:
        lines.append(f"  wall time: {wall_s:.2f}s")
    lines += [f"  QUALITY GATE FAILED: {reason}" for reason in summary.get("gate_failures") or []]
    return "\n".join(lines)


def _pass_line(summary: dict[str, Any]) -> str:
    ci = summary.get("ci95")
    ci_text = f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "n/a"
    return f"  pass rate: {100 * summary.get('pass_rate', 0):.1f}%   95% CI of mean: {ci_text}"


def _trial_lines(trials: dict[str, Any] | None) -> list[str]:
    if not trials:
        return []
    k = trials["k"]
    count = str(k) if trials["max_trials"] == k else f"{k}-{trials['max_trials']}"
    lines = [f"  trials: {trials['cases']} case(s) x {count} trials   pass@1: "
             f"{trials['pass_at_1']:.3f}   pass@{k}: {trials['pass_at_k']:.3f}   "
             f"pass^{k}: {trials['pass_hat_k']:.3f}"]
    if trials["disagreeing"]:
        lines.append("  trials disagree: " + shorten(trials["disagreeing"]))
    return lines


OVERALL = "(overall)"
BREAKDOWN_COLUMNS = ["target", "evaluator", "n", "mean", "median", "std", "pass_rate",
                     "error_rate", "p50_latency_ms", "p95_latency_ms", "tokens", "cost_usd"]


def _numeric(frame, column: str):
    import pandas as pd
    if column not in frame:
        return pd.Series(float("nan"), index=frame.index)
    return pd.to_numeric(frame[column], errors="coerce").astype(float)


def _case_rows(df):
    import pandas as pd
    tokens = _numeric(df, "input_tokens").fillna(0) + _numeric(df, "output_tokens").fillna(0)
    return pd.DataFrame({"target": df["target"].fillna(""), "evaluator": OVERALL,
                         "score": df["score"].astype(float),
                         "passed": df["verdict"].eq("pass").fillna(False).astype(bool),
                         "errored": df["error"].notna(), "latency_ms": _numeric(df, "latency_ms"),
                         "tokens": tokens, "cost_usd": _numeric(df, "cost_usd")})


def _evaluator_rows(df):
    """One row per evaluator result (exploded from the JSON column); tokens/cost are the
    evaluator's own (judge) usage, latency the case's."""
    import pandas as pd
    parsed = df["evaluator_results"].dropna().map(json.loads).explode().dropna()
    if parsed.empty:
        return None
    flat = pd.json_normalize(parsed.tolist())
    flat.index = parsed.index
    tokens = (_numeric(flat, "usage.input_tokens").fillna(0)
              + _numeric(flat, "usage.output_tokens").fillna(0))
    verdict = flat["verdict"] if "verdict" in flat else pd.Series("", index=flat.index)
    errored = flat["error"].notna() if "error" in flat else pd.Series(False, index=flat.index)
    return pd.DataFrame({"target": df.loc[flat.index, "target"].fillna(""),
                         "evaluator": flat["name"].fillna(flat.get("type", "")),
                         "score": _numeric(flat, "score"), "passed": verdict.eq("pass"),
                         "errored": errored, "latency_ms": _numeric(df, "latency_ms")[flat.index],
                         "tokens": tokens, "cost_usd": _numeric(flat, "usage.cost_usd")})


def breakdown(df) -> list[dict[str, Any]]:
    """Per target × evaluator (plus each target's overall score): n, mean, median, std,
    pass rate, error rate, p50/p95 latency, tokens, cost."""
    import pandas as pd
    if df.empty:
        return []
    parts = [_case_rows(df)]
    if "evaluator_results" in df:
        parts.append(_evaluator_rows(df))
    rows = pd.concat([p for p in parts if p is not None], ignore_index=True)
    table = rows.groupby(["target", "evaluator"], sort=True).agg(
        n=("score", "size"), mean=("score", exact_mean), median=("score", "median"),
        std=("score", exact_std), pass_rate=("passed", "mean"), error_rate=("errored", "mean"),
        p50_latency_ms=("latency_ms", lambda s: s.quantile(0.5)),
        p95_latency_ms=("latency_ms", lambda s: s.quantile(0.95)),
        tokens=("tokens", "sum"), cost_usd=("cost_usd", lambda s: s.sum(min_count=1)),
    ).reset_index()
    table["tokens"] = table["tokens"].astype(int)
    table = table.round(4).astype(object).where(table.notna(), None)
    return table[BREAKDOWN_COLUMNS].to_dict("records")
