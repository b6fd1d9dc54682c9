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

from math import fsum, lgamma, log
from typing import Any

from agentv.providers.errors import ConfigError
from agentv.tasks.results.frames import load_table
from agentv.tasks.results.tally_pairs import KeyedScores, keyed
from agentv.tasks.results.trials import bootstrap_ci

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


def match_keys(rows1: list[dict[str, Any]], rows2: list[dict[str, Any]]) -> list[str]:
    targets1 = {r["target"] for r in rows1 if r.get("target") is not None}
    targets2 = {r["target"] for r in rows2 if r.get("target") is not None}
    if len(targets1) > 1 and targets1 == targets2:
        return ["eval_id", "target", "trial"]
    return ["eval_id", "trial"]


def _pairs(left: KeyedScores, right: KeyedScores, threshold: float) -> list[dict[str, Any]]:
    """The keys both files hold, in the order of the first file."""
    import numpy as np
    pairs = []
    for key in left.entries:
        if key in right.entries:
            score1, score2 = left.mean(key), right.mean(key)
            delta = float(np.round(score2 - score1, 6))
            pairs.append({**dict(zip(left.keys, key)), "score1": score1, "score2": score2,
                          "delta": delta, "outcome": classify(delta, threshold),
                          "passed1": left.passed(key), "passed2": right.passed(key)})
    return pairs


def _records(rows: list[dict[str, Any]]) -> int:
    """Records read from one file: each is either matched or unmatched, so the summary's
    ``total`` is matched + unmatched records (AgentV: 5 matched pairs → total 10)."""
    return len(rows)


def _matched_items(pairs: list[dict[str, Any]], keys: list[str]) -> list[dict[str, Any]]:
    with_trial = any(p["trial"] > 0 for p in pairs)
    items = []
    for pair in pairs:
        item: dict[str, Any] = {k: pair[k] for k in ("eval_id", "score1", "score2", "delta",
                                                     "outcome")}
        if "target" in keys:
            item["target"] = pair["target"]
        if with_trial:
            item["trial"] = int(pair["trial"])
        items.append(item)
    return items


def _per_case(pairs: list[dict[str, Any]], keys: list[str]) -> list[float]:
    """Each case's mean delta over its trials, in case order (trials of a case count once)."""
    clusters = [k for k in keys if k != "trial"]
    deltas: dict[tuple[Any, ...], list[float]] = {}
    for pair in pairs:
        deltas.setdefault(tuple(pair[k] for k in clusters), []).append(pair["delta"])
    return [fsum(values) / len(values) for _, values in sorted(deltas.items())]


def significance(pairs: list[dict[str, Any]], keys: list[str], threshold: float
                 ) -> dict[str, Any]:
    import numpy as np
    per_case = _per_case(pairs, keys)
    ci = bootstrap_ci(per_case, resamples=RESAMPLES)
    wins = [p for p in pairs if p["outcome"] == "win"]
    losses = [p for p in pairs if p["outcome"] == "loss"]
    flips_down = sum(1 for p in losses if p["passed1"] and not p["passed2"])
    flips_up = sum(1 for p in wins if not p["passed1"] and p["passed2"])
    positive, negative = len(wins), len(losses)
    upper = ci[1] if ci else float(np.mean(per_case))
    return {
        "ci95": [round(ci[0], 4), round(ci[1], 4)] if ci else None,
        "cases": len(per_case), "resamples": RESAMPLES if ci else 0,
        "mcnemar": {"pass_to_fail": flips_down, "fail_to_pass": flips_up,
                    "p_value": round(exact_binomial_p(flips_up, flips_up + flips_down), 6)},
        "sign_test": {"positive": positive, "negative": negative,
                      "p_value": round(exact_binomial_p(positive, positive + negative), 6)},
        "regression": bool(upper < -threshold),
    }


def compare_rows(rows1: list[dict[str, Any]], rows2: list[dict[str, Any]],
                 threshold: float = DEFAULT_THRESHOLD,
                 names: tuple[str, str] = ("file1", "file2")) -> dict[str, Any]:
    """Compare two files' rows (of the results schema: eval_id, target, trial, score,
    error)."""
    import numpy as np
    keys = match_keys(rows1, rows2)
    left, right = keyed(rows1, keys), keyed(rows2, keys)
    pairs = _pairs(left, right, threshold)
    if not pairs:
        raise ConfigError(f"no common eval_id between {names[0]} ({len(left)} case(s)) and "
                          f"{names[1]} ({len(right)} case(s)): nothing to compare")
    outcomes = [p["outcome"] for p in pairs]
    return {
        "matched": _matched_items(pairs, keys),
        "unmatched": {"file1": left.records_without(right),
                      "file2": right.records_without(left)},
        "summary": {"total": _records(rows1) + _records(rows2), "matched": len(pairs),
                    "wins": outcomes.count("win"), "losses": outcomes.count("loss"),
                    "ties": outcomes.count("tie"),
                    "meanDelta": round(float(np.mean([p["delta"] for p in pairs])), 3)},
        "significance": significance(pairs, keys, threshold),
    }


def compare_files(file1: str, file2: str, threshold: float = DEFAULT_THRESHOLD) -> dict[str, Any]:
    if threshold < 0:
        raise ConfigError(f"must be >= 0, got {threshold}", None, "--threshold")
    rows1 = load_table(file1, columns=COLUMNS).to_pylist()
    rows2 = load_table(file2, columns=COLUMNS).to_pylist()
    return compare_rows(rows1, rows2, threshold, names=(file1, file2))


def exit_code(result: dict[str, Any], fail_on_regression: bool = False) -> int:
    """AgentV's rule: 0 when B's mean >= A's, else 1. With the significance gate: 1 only
    when the CI of the mean delta lies wholly below -threshold."""
    if fail_on_regression:
        return 1 if result["significance"]["regression"] else 0
    return 0 if result["summary"]["meanDelta"] >= 0 else 1


def _signed(value: float, digits: int) -> str:
    return f"{'+' if value >= 0 else ''}{value:.{digits}f}"


def shown(matched: list[dict[str, Any]], only_changed: bool = False,
          top: int | None = None) -> list[dict[str, Any]]:
    """The matched cases to list: only wins and losses (``only_changed``); the ``top`` N
    largest changes, losses before wins at equal size (else in the baseline's order)."""
    rows = [m for m in matched if m["outcome"] != "tie"] if only_changed else list(matched)
    if top is not None:
        rows = sorted(rows, key=lambda m: (-abs(m["delta"]), m["delta"]))[:top]
    return rows


def format_table(result: dict[str, Any], file1: str, file2: str,
                 hidden: int = 0) -> str:
    """The table of ``result["matched"]``; ``hidden``: matched cases left out of it
    (``--only-changed``, ``--top``), said in one line; the summary counts them all."""
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
    if hidden:
        lines += ["", f"({hidden} more matched case(s) not listed: --only-changed / --top)"]
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
