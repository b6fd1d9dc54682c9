"""The compare page's data: a run against its baseline, matched and tested as ``agentv
compare`` does (tasks/results/compare.py: paired bootstrap CI of the mean delta, sign test,
exact McNemar on flips), plus the paired differences' spread, their standard error
clustered by conversation when cases share one (and by case when runs match by target: one
input on several targets), the minimum detectable effect for this many
cases, and pass@k / pass^k of each run's trials (tasks/results/trials.py). Cases are sorted
by regression: the largest drop first, pass → fail flips first among equal drops."""
from __future__ import annotations

import math
from typing import Any

from agentv.providers.errors import ConfigError
from agentv.providers.printable import printable
from agentv.tasks.results.compare import DEFAULT_THRESHOLD, compare_rows, match_keys
from agentv.tasks.results.tally import Tally
from agentv.tasks.view.run_data import case_reason, short

Z_ALPHA, Z_POWER = 1.96, 0.8416  # two-sided 5%, 80% power


def _key(row: dict[str, Any], keys: list[str]) -> tuple:
    return tuple((row.get(k) or 0) if k == "trial" else row.get(k) for k in keys)


def paired_stats(deltas: list[float], clusters: list[Any]) -> dict[str, Any]:
    """Mean and SD of the paired differences, their SE (clustered when cases share a
    conversation: the cluster sums' spread), and the minimum detectable effect."""
    n = len(deltas)
    if n < 2:
        return {"n": n}
    mean = math.fsum(deltas) / n
    sd = math.sqrt(math.fsum((d - mean) ** 2 for d in deltas) / (n - 1))
    se = sd / math.sqrt(n)
    sums: dict[Any, float] = {}
    for i, (d, c) in enumerate(zip(deltas, clusters)):
        key = c if c is not None else ("case", i)
        sums[key] = sums.get(key, 0.0) + (d - mean)
    shared = len(sums) < n
    g = len(sums)
    clustered = (math.sqrt(g / (g - 1) * math.fsum(s * s for s in sums.values())) / n
                 if shared and g > 1 else None)
    used = clustered if clustered is not None else se
    return {"n": n, "mean": round(mean, 4), "sd": round(sd, 4), "se": round(se, 4),
            "clusters": g if shared else None,
            "clustered_se": round(clustered, 4) if clustered is not None else None,
            "mde": round((Z_ALPHA + Z_POWER) * used, 4)}


def _trials(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    tally = Tally()
    for row in rows:
        tally.add(row, [])
    return tally.summary().get("trials")


def _row(pair: dict[str, Any], before: dict[str, Any], after: dict[str, Any]) -> dict:
    return {"id": printable(pair["eval_id"]), "target": printable(after.get("target") or ""),
            "t": after.get("trial") or 0, "s1": pair["score1"], "s2": pair["score2"],
            "d": pair["delta"], "o": pair["outcome"], "v1": before.get("verdict"),
            "v2": after.get("verdict"), "a1": short(before.get("candidate_answer")),
            "a2": short(after.get("candidate_answer")), "r2": short(case_reason(after), 400),
            "r1": short(case_reason(before), 400)}


def _order(row: dict[str, Any]) -> tuple:
    flip = row["v1"] == "pass" and row["v2"] != "pass"
    return (row["d"], not flip, row["id"], row["target"], row["t"])


def compare_data(run: dict[str, Any], rows: list[dict[str, Any]], base: dict[str, Any],
                 base_rows: list[dict[str, Any]], threshold: float = DEFAULT_THRESHOLD
                 ) -> dict[str, Any]:
    """``run`` (a summary, tasks.view.index) against ``base``, from their rows."""
    out: dict[str, Any] = {"run": run, "baseline": base, "threshold": threshold,
                           "trials": [_trials(base_rows), _trials(rows)]}
    try:
        result = compare_rows(base_rows, rows, threshold, names=(base["id"], run["id"]))
    except ConfigError as err:
        return {**out, "problem": str(err), "rows": []}
    keys = match_keys(base_rows, rows)
    before = {_key(r, keys): r for r in base_rows}
    after = {_key(r, keys): r for r in rows}
    pairs = [dict(zip(keys, _key(m, keys)), **m) for m in result["matched"]]
    table = sorted((_row(p, before[_key(p, keys)], after[_key(p, keys)]) for p in pairs),
                   key=_order)
    deltas = [p["delta"] for p in pairs]
    clusters = [after[_key(p, keys)].get("conversation_id")  # one input, several targets
                or (p["eval_id"] if "target" in keys else None) for p in pairs]
    return {**out, "summary": result["summary"], "unmatched": result["unmatched"],
            "significance": result["significance"], "paired": paired_stats(deltas, clusters),
            "by_target": "target" in keys, "rows": table}
