"""AgentV 4.x records at the results file's edge.

Written: a 4.x test's record keeps AgentV 4.42.4's keys only, in its order (the engine's own
keys — eval_id, case_key, evaluator_results, … — stay in memory for the summary, Parquet and
JUnit). Read back (report, compare, resume, the API): a 4.x record gets those keys again from
its own (``test_id`` → eval_id, ``suite`` → dataset, ``scores`` → evaluator_results,
``execution_status`` → verdict)."""
from __future__ import annotations

from typing import Any

from agentv.evaluators.outcome4 import STATUS_VERDICTS
from agentv.tasks.load.generation import FORMAT, FORMAT_KEY

ORDER = ("timestamp", "test_id", "suite", "category", "conversation_id", "score", "target",
         "token_usage", "cost_usd", "duration_ms", "start_time", "end_time", "scores",
         "execution_status", "error", "failure_stage", "failure_reason_code", "workspace_path",
         "artifact_dir", "grading_path", "timing_path", "input_path", "output_path",
         "answer_path", "transcript_path", "response_path", "task_dir", "eval_path",
         "targets_path", "projection_identity", "export_metadata",
         "metadata")  # the paths and the trace's identity: --output's run folder


def written(record: dict[str, Any]) -> dict[str, Any]:
    if record.get(FORMAT_KEY) != FORMAT:
        return record
    return {k: record[k] for k in ORDER if record.get(k) is not None}


def as_internal(record: dict[str, Any]) -> dict[str, Any]:
    """A 4.x record read from a file, with the engine's keys filled in (others: as is)."""
    if "test_id" not in record or "eval_id" in record:
        return record
    suite, target = record.get("suite") or "", record.get("target") or ""
    results = [{"name": s.get("name"), "type": s.get("type"), "score": s.get("score"),
                "weight": s.get("weight", 1.0), "verdict": s.get("verdict"),
                "hits": [a.get("text") for a in s.get("assertions") or [] if a.get("passed")],
                "misses": [a.get("text") for a in s.get("assertions") or []
                           if not a.get("passed")]}
               for s in record.get("scores") or [] if isinstance(s, dict)]
    usage = record.get("token_usage") or {}
    return {**record, "eval_id": record["test_id"], "dataset": suite,
            "case_key": f"{suite}::{record['test_id']}::{target}::0", "trial": 0,
            "verdict": STATUS_VERDICTS.get(record.get("execution_status") or ""),
            "evaluator_results": results, FORMAT_KEY: FORMAT,
            "usage": {"input_tokens": usage.get("input"), "output_tokens": usage.get("output"),
                      "cost_usd": record.get("cost_usd")},
            "latency_ms": record.get("duration_ms")}
