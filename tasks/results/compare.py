"""``agentv compare A B``: match two result files by eval_id (and trial), classify each
delta = score2 - score1 as win / loss / tie by the threshold, and test whether the change
is more than noise.

The JSON keeps AgentV's shape — ``matched[]`` ({eval_id, score1, score2, delta, outcome}),
``unmatched {file1, file2}`` (how many records of each file have no partner, trial by
trial), ``summary {total, matched, wins, losses, ties, meanDelta}`` with ``total`` the records
compared, matched + unmatched — and adds ``significance``: a paired bootstrap 95% CI of the mean
delta (resampling cases, so trials of one case count once), an exact sign test on the wins
and losses the table shows, and an exact McNemar test on pass/fail flips among them (a
pass→fail flip counts only when the delta is a loss). ``regression`` is true only when the
whole CI lies below ``-threshold``.

Matching: by (eval_id, trial); also by target when both files hold the same several
targets. Records sharing a key are averaged. Deltas are rounded to 6 decimals before
classification (win: delta >= threshold, loss: delta <= -threshold).
"""
from __future__ import annotations

from math import lgamma, log
from typing import Any

from evaluators.base import PASS_THRESHOLD
from providers.errors import ConfigError
from tasks.results.frames import load_results
from tasks.results.trials import bootstrap_ci

DEFAULT_THRESHOLD = 0.1
RESAMPLES = 10_000
COLUMNS = ["eval_id", "target", "trial", "score", "verdict", "error"]


def exact_binomial_p(successes: int, trials: int) -> float:
    """Two-sided exact binomial test of p = 0.5 (sign test / exact McNemar), summed in
    log space so thousands of pairs take milliseconds."""
    if trials == 0:
        return 1.0
    import numpy as np
    i = np.arange(min(successes, trials - successes) + 1)
    log_pmf = (lgamma(trials + 1) - np.vectorize(lgamma)(i + 1)
               - np.vectorize(lgamma)(trials - i + 1) - trials * log(2))
    return float(min(1.0, 2 * np.exp(log_pmf).sum()))


def classify(delta: float, threshold: float) -> str:
    if delta >= threshold:
        return "win"
    if delta <= -threshold:
        return "loss"
    return "tie"


def match_keys(df1, df2) -> list[str]:
    targets1, targets2 = set(df1["target"].dropna()), set(df2["target"].dropna())
    if len(targets1) > 1 and targets1 == targets2:
        return ["eval_id", "target", "trial"]
    return ["eval_id", "trial"]


def _keyed(df, keys: list[str]):
    data = df.assign(passed=(df["score"] >= PASS_THRESHOLD) & df["error"].isna(),
                     target=df["target"].fillna(""))
    return data.groupby(keys, sort=False).agg(score=("score", "mean"), passed=("passed", "all"))


def _pairs(df1, df2, keys: list[str], threshold: float):
    left, right = _keyed(df1, keys), _keyed(df2, keys)
    pairs = left.merge(right, how="inner", left_index=True, right_index=True,
                       suffixes=("1", "2")).reset_index()
    pairs["delta"] = (pairs["score2"] - pairs["score1"]).round(6)
    pairs["outcome"] = pairs["delta"].map(lambda d: classify(d, threshold))
    return pairs, left, right


def _unmatched(df, keys: list[str], other) -> int:
    """Records of ``df`` whose key (eval_id, trial, …) has no partner in ``other``."""
    rows = df.assign(target=df["target"].fillna(""))
    index = rows.set_index(keys).index
    return int((~index.isin(other.index)).sum())


def _records(df) -> int:
    """Records read from one file: each is either matched or unmatched, so the summary's
    ``total`` is matched + unmatched records (AgentV: 5 matched pairs → total 10)."""
    return int(len(df))


def _matched_items(pairs, keys: list[str]) -> list[dict[str, Any]]:
    with_trial = bool((pairs["trial"] > 0).any())
    items = []
    for row in pairs.itertuples():
        item: dict[str, Any] = {"eval_id": row.eval_id, "score1": float(row.score1),
                                "score2": float(row.score2), "delta": float(row.delta),
                                "outcome": row.outcome}
        if "target" in keys:
            item["target"] = row.target
        if with_trial:
            item["trial"] = int(row.trial)
        items.append(item)
    return items


def significance(pairs, keys: list[str], threshold: float) -> dict[str, Any]:
    clusters = [k for k in keys if k != "trial"]
    per_case = pairs.groupby(clusters)["delta"].mean()
    ci = bootstrap_ci(per_case, resamples=RESAMPLES)
    wins, losses = pairs["outcome"] == "win", pairs["outcome"] == "loss"
    flips_down = int((losses & pairs["passed1"] & ~pairs["passed2"]).sum())
    flips_up = int((wins & ~pairs["passed1"] & pairs["passed2"]).sum())
    positive, negative = int(wins.sum()), int(losses.sum())
    upper = ci[1] if ci else float(per_case.mean())
    return {
        "ci95": [round(ci[0], 4), round(ci[1], 4)] if ci else None,
        "cases": int(len(per_case)), "resamples": RESAMPLES if ci else 0,
        "mcnemar": {"pass_to_fail": flips_down, "fail_to_pass": flips_up,
                    "p_value": round(exact_binomial_p(flips_up, flips_up + flips_down), 6)},
        "sign_test": {"positive": positive, "negative": negative,
                      "p_value": round(exact_binomial_p(positive, positive + negative), 6)},
        "regression": bool(upper < -threshold),
    }


def compare_frames(df1, df2, threshold: float = DEFAULT_THRESHOLD,
                   names: tuple[str, str] = ("file1", "file2")) -> dict[str, Any]:
    keys = match_keys(df1, df2)
    pairs, left, right = _pairs(df1, df2, keys, threshold)
    if pairs.empty:
        raise ConfigError(f"no common eval_id between {names[0]} ({left.shape[0]} case(s)) and "
                          f"{names[1]} ({right.shape[0]} case(s)): nothing to compare")
    counts = pairs["outcome"].value_counts()
    unmatched = {"file1": _unmatched(df1, keys, right), "file2": _unmatched(df2, keys, left)}
    return {
        "matched": _matched_items(pairs, keys),
        "unmatched": unmatched,
        "summary": {"total": _records(df1) + _records(df2), "matched": int(len(pairs)),
                    "wins": int(counts.get("win", 0)), "losses": int(counts.get("loss", 0)),
                    "ties": int(counts.get("tie", 0)),
                    "meanDelta": round(float(pairs["delta"].mean()), 3)},
        "significance": significance(pairs, keys, threshold),
    }


def compare_files(file1: str, file2: str, threshold: float = DEFAULT_THRESHOLD) -> dict[str, Any]:
    if threshold < 0:
        raise ConfigError(f"must be >= 0, got {threshold}", None, "--threshold")
    df1 = load_results(file1, columns=COLUMNS)
    df2 = load_results(file2, columns=COLUMNS)
    return compare_frames(df1, df2, threshold, names=(file1, file2))


def exit_code(result: dict[str, Any], fail_on_regression: bool = False) -> int:
    """AgentV's rule: 0 when B's mean >= A's, else 1. With the significance gate: 1 only
    when the CI of the mean delta lies wholly below -threshold."""
    if fail_on_regression:
        return 1 if result["significance"]["regression"] else 0
    return 0 if result["summary"]["meanDelta"] >= 0 else 1


def _signed(value: float, digits: int) -> str:
    return f"{'+' if value >= 0 else ''}{value:.{digits}f}"


def format_table(result: dict[str, Any], file1: str, file2: str) -> str:
    matched = result["matched"]
    label = lambda m: m["eval_id"] + (f" [{m['target']}]" if "target" in m else "") + (
        f" #{m['trial']}" if "trial" in m else "")
    width = max([7] + [len(label(m)) for m in matched])
    marks = {"win": "✓ win", "loss": "✗ loss", "tie": "= tie"}
    lines = ["", f"Comparing: {file1} → {file2}", "",
             f"  {'Eval ID':<{width}}  {'Baseline':>8}  {'Candidate':>9}  {'Delta':>8}  Result",
             f"  {'─' * width}  {'─' * 8}  {'─' * 9}  {'─' * 8}  {'─' * 8}"]
    lines += [f"  {label(m):<{width}}  {m['score1']:>8.2f}  {m['score2']:>9.2f}  "
              f"{_signed(m['delta'], 2):>8}  {marks[m['outcome']]}" for m in matched]
    unmatched = result["unmatched"]
    if unmatched["file1"] or unmatched["file2"]:
        lines += ["", f"⚠ Unmatched: {unmatched['file1']} in baseline, "
                      f"{unmatched['file2']} in candidate"]
    lines += ["", _summary_line(result["summary"]), _significance_line(result["significance"]), ""]
    return "\n".join(lines)


def _summary_line(s: dict[str, Any]) -> str:
    delta = s["meanDelta"]
    status = "improved" if delta > 0 else "regressed" if delta < 0 else "neutral"
    plural = lambda n, word, many: f"{n} {word if n == 1 else many}"
    return (f"Summary: {plural(s['wins'], 'win', 'wins')}, "
            f"{plural(s['losses'], 'loss', 'losses')}, {plural(s['ties'], 'tie', 'ties')} | "
            f"Mean Δ: {_signed(delta, 3)} | Status: {status}")


def _significance_line(sig: dict[str, Any]) -> str:
    ci = sig["ci95"]
    ci_text = f"[{_signed(ci[0], 3)}, {_signed(ci[1], 3)}]" if ci else "n/a (one case)"
    mc, st = sig["mcnemar"], sig["sign_test"]
    verdict = ("REGRESSION (CI below -threshold)" if sig["regression"]
               else "no significant regression")
    return (f"Significance: mean Δ 95% CI {ci_text} over {sig['cases']} case(s) | McNemar "
            f"p={mc['p_value']:.3f} ({mc['pass_to_fail']} pass→fail, {mc['fail_to_pass']} "
            f"fail→pass) | sign test p={st['p_value']:.3f} ({st['positive']} wins, "
            f"{st['negative']} losses) | {verdict}")
