"""The sums of AgentV 4.42.4's run-folder files, as its artifact writer computes them:
``grading.json`` of a test, ``timing.json`` of a test or the run, ``benchmark.json`` (per target:
pass rate over graders scoring ≥ 0.8, seconds, tokens; per grader: mean score; rounded to
3 places, population standard deviation). Records of either format are read: a 4.x record's
``scores``/``token_usage``/``duration_ms``, a v2 record's ``evaluator_results``/``usage``/
``latency_ms``."""
from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import Any

PASS_MARK = 0.8  # AgentV's DEFAULT_THRESHOLD


def scores(record: dict[str, Any]) -> list[dict[str, Any]]:
    if isinstance(record.get("scores"), list):
        return record["scores"]
    return [{"name": r.get("name"), "type": r.get("type"), "score": r.get("score") or 0.0,
             "weight": r.get("weight", 1.0), "verdict": r.get("verdict"),
             "assertions": [{"text": h, "passed": True} for h in r.get("hits") or []]
             + [{"text": m, "passed": False} for m in r.get("misses") or []]}
            for r in record.get("evaluator_results") or [] if isinstance(r, dict)]


def is_error(record: dict[str, Any]) -> bool:
    status = record.get("execution_status")
    return status == "execution_error" if status else record.get("verdict") == "error"


def duration_ms(record: dict[str, Any]) -> float | None:
    value = record.get("duration_ms", record.get("latency_ms"))
    return value if isinstance(value, (int, float)) else None


def tokens(record: dict[str, Any]) -> dict[str, int] | None:
    usage = record.get("token_usage")
    if isinstance(usage, dict):
        return {k: usage.get(k) or 0 for k in ("input", "output", "reasoning")}
    usage = record.get("usage")
    if isinstance(usage, dict) and (usage.get("input_tokens") or usage.get("output_tokens")):
        return {"input": usage.get("input_tokens") or 0,
                "output": usage.get("output_tokens") or 0, "reasoning": 0}
    return None


def cost(record: dict[str, Any]) -> float | None:
    value = record.get("cost_usd")
    if value is None and isinstance(record.get("usage"), dict):
        value = record["usage"].get("cost_usd")
    return value


def tool_calls(record: dict[str, Any]) -> dict[str, int]:
    summary = record.get("trace_summary") or {}
    by_name = summary.get("tool_calls_by_name") if isinstance(summary, dict) else None
    return dict(by_name) if isinstance(by_name, dict) else {}


def grading(record: dict[str, Any]) -> dict[str, Any]:
    graders = scores(record)
    items = [{"text": a.get("text"), "passed": a.get("passed"), "evidence": a.get("evidence", "")}
             for g in graders for a in g.get("assertions") or []]
    if not graders and record.get("error"):  # the target failed: AgentV's one assertion
        items = [{"text": f"Error: {record['error']}", "passed": False, "evidence": ""}]
    passed = sum(1 for a in items if a["passed"])
    calls = tool_calls(record)
    out: dict[str, Any] = {
        "assertions": items,
        "summary": {"passed": passed, "failed": len(items) - passed, "total": len(items),
                    "pass_rate": round(passed / len(items), 3) if items else 0},
        "execution_metrics": {"tool_calls": calls, "total_tool_calls": sum(calls.values()),
                              "errors_encountered": 1 if record.get("error") else 0}}
    if graders:
        out["graders"] = [{"name": g.get("name"), "type": g.get("type"), "score": g.get("score"),
                           "reasoning": "", "weight": g.get("weight"), "verdict": g.get("verdict"),
                           "assertions": g.get("assertions") or [],
                           **({"details": g["details"]} if g.get("details") else {})}
                          for g in graders]
    return out


def timing(records: list[dict[str, Any]]) -> dict[str, Any]:
    used = [t for t in map(tokens, records) if t]
    total_ms = sum(d for d in map(duration_ms, records) if d is not None)
    sums = {k: sum(t[k] for t in used) for k in ("input", "output", "reasoning")}
    return {"total_tokens": sums["input"] + sums["output"], "duration_ms": round(total_ms),
            "total_duration_seconds": round(total_ms / 1000, 3), "token_usage": sums}


def stats(values: list[float]) -> dict[str, float]:
    if not values:
        return {"mean": 0, "stddev": 0}
    mean = sum(values) / len(values)
    spread = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    return {"mean": round(mean, 3), "stddev": round(spread, 3)}


def pass_rate(record: dict[str, Any]) -> float:
    graders = scores(record)
    if graders:
        return sum(1 for g in graders if (g.get("score") or 0) >= PASS_MARK) / len(graders)
    return 1.0 if (record.get("score") or 0) >= PASS_MARK else 0.0


def _target_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "pass_rate": stats([pass_rate(r) for r in rows if not is_error(r)]),
        "time_seconds": stats([d / 1000 for d in map(duration_ms, rows) if d is not None]),
        "tokens": stats([t["input"] + t["output"] for t in map(tokens, rows) if t])}
    calls = [sum(tool_calls(r).values()) for r in rows]
    if any(calls):
        entry["tool_calls"] = stats([float(c) for c in calls])
    costs = [c for c in map(cost, rows) if c is not None]
    if costs:
        entry["cost_usd"] = stats(costs)
    return entry


def benchmark(rows: list[dict[str, Any]], eval_file: str, planned: int | None) -> dict[str, Any]:
    targets = sorted({r.get("target") or "unknown" for r in rows})
    per_grader: dict[str, list[float]] = {}
    for row in rows:
        if not is_error(row):
            for g in scores(row):
                per_grader.setdefault(f"{g.get('name')}:{g.get('type')}", []).append(
                    g.get("score") or 0.0)
    notes = []
    errors = sum(1 for r in rows if is_error(r))
    if errors:
        notes.append(f"{errors} test(s) had execution errors and are excluded from quality "
                     "pass_rate")
    if not rows:
        notes.append("No results to summarize")
    stamp = rows[0].get("timestamp") if rows else None
    metadata: dict[str, Any] = {
        "eval_file": eval_file,
        "timestamp": stamp or datetime.now(timezone.utc).isoformat().replace("+00:00", "Z"),
        "targets": targets,
        "tests_run": sorted({str(r.get("test_id") or r.get("eval_id") or "unknown")
                             for r in rows}),
        "experiment": "default"}
    if planned is not None:
        metadata["planned_test_count"] = planned
    out: dict[str, Any] = {
        "metadata": metadata,
        "run_summary": {t: _target_summary([r for r in rows if (r.get("target") or "unknown")
                                            == t]) for t in targets}}
    if per_grader:
        out["per_grader_summary"] = {k: stats(v) for k, v in per_grader.items()}
    out["notes"] = notes
    return out
