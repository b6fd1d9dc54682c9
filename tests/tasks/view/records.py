"""Result records written as a run writes them (agentv's ``ResultWriter``), for the viewer's
tests and benchmark: a suite's cases on one or more targets, with a chosen score, answer and
failing reason per case, optionally a trace and file changes."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from agentv.evaluators.base import verdict_for
from agentv.tasks.results.write import ResultWriter

TRACE = [{"type": "tool_call", "name": "search_web", "arguments": {"q": "capital of France"},
          "result": "Paris is the capital", "ok": True, "duration_ms": 42.0},
         {"type": "llm_call", "ok": True, "model": "mock-1", "input_tokens": 12,
          "output_tokens": 7}]
DIFF = ("diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n"
        "-print('hi')\n+print('hello')\n")


def record(eval_id: str, target: str, score: float, answer: str, *, reason: str = "",
           error: str | None = None, trial: int = 0, question: str | None = None,
           stamp: str = "2026-11-28T10:00:00.000Z", suite: str = "geo",
           trace: bool = False, cost: float | None = None) -> dict[str, Any]:
    verdict = "error" if error else verdict_for(score)
    hits = [] if verdict != "pass" else ["mentions the answer"]
    misses = [reason] if verdict not in ("pass", "error") and reason else []
    out: dict[str, Any] = {
        "timestamp": stamp, "eval_id": eval_id, "dataset": suite, "target": target,
        "trial": trial, "case_key": f"{suite}.yaml::{eval_id}::{target}::{trial}",
        "expected_outcome": f"The right answer to {eval_id}.",
        "lm_provider_request": {"chat_prompt": [
            {"role": "system", "content": "You are a careful assistant."},
            {"role": "user", "content": question or f"Question of {eval_id}?"}]},
        "score": 0.0 if error else score, "hits": hits, "misses": misses,
        "candidate_answer": "" if error else answer, "reasoning": reason or "fine",
        "evaluator_results": [] if error else [
            {"name": "judge", "type": "llm_judge", "score": score, "weight": 1.0,
             "verdict": verdict, "hits": hits, "misses": misses,
             "reasoning": reason or "all key terms present"}],
        "error": error, "attempt": 1, "latency_ms": 120.0, "wait_ms": 0.0,
        "usage": {"input_tokens": 30, "output_tokens": 12, "cost_usd": cost} if cost else None}
    if trace:
        out["trace"] = TRACE
        out["file_changes"] = DIFF
        out["trace_summary"] = {"event_count": 1, "tool_names": ["search_web"],
                                "llm_call_count": 1, "error_count": 0, "duration_ms": 120.0}
    return out


def write_run(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with ResultWriter(path) as writer:
        for rec in records:
            writer.write(rec)
    return path


def geo_run(path: Path, targets: tuple[str, ...] = ("alpha",), regress: str | None = None,
            stamp: str = "2026-11-28T10:00:00.000Z") -> Path:
    """Four cases: capital-france fails on every target but the first, river errors on the
    last target; ``regress``: a case id that fails everywhere (the seeded regression)."""
    records = []
    for i, target in enumerate(targets):
        for eval_id, answer in (("capital-france", "Paris is the capital."),
                                ("capital-italy", "Rome."), ("river", "The Seine."),
                                ("mountain", "Mont Blanc.")):
            score, reason, error = 1.0, "", None
            if eval_id == "capital-france" and i > 0:
                score, answer, reason = 0.2, "The capital is Lyon.", "does not mention Paris"
            if eval_id == "river" and i == len(targets) - 1 and i > 0:
                error = "Provider error: connection refused"
            if eval_id == regress:
                score, answer, reason = 0.1, "I do not know.", f"{eval_id}: no answer given"
            records.append(record(eval_id, target, score, answer, reason=reason, error=error,
                                  stamp=stamp, trace=eval_id == "capital-france"))
    return write_run(path, records)
