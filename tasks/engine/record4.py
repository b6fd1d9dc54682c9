"""The result record of an AgentV 4.x test, with AgentV 4.42.4's keys (its ``index.jsonl``
line without the run-folder paths): ``timestamp``, ``test_id``, ``suite``, ``category``,
``conversation_id``, ``score``, ``target``, ``token_usage``, ``cost_usd``, ``duration_ms``,
``scores[]`` ({name, type, score, weight, verdict, assertions[], scores[] of members,
details}), ``execution_status`` (ok / quality_failure / execution_error), ``error``,
``failure_stage``, ``failure_reason_code``, ``metadata``. A key AgentV leaves out when it has
no value is left out here too.
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from agentv.evaluators.base import EvaluatorResult
from agentv.evaluators.outcome4 import STATUS_VERDICTS, case_outcome, grader_verdict
from agentv.tasks.load.generation import FORMAT, FORMAT_KEY


def assertion_items(result: EvaluatorResult) -> list[dict[str, Any]]:
    if result.assertions is not None:
        return [dict(a) for a in result.assertions]
    return ([{"text": h, "passed": True} for h in result.hits]
            + [{"text": m, "passed": False} for m in result.misses])


def score_entry(result: EvaluatorResult) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": result.name, "type": result.type,
                             "score": result.score, "weight": result.weight,
                             "verdict": grader_verdict(result),
                             "assertions": assertion_items(result)}
    if result.evaluator_provider_request is not None:
        entry["input"] = result.evaluator_provider_request
    if result.children is not None:
        entry["scores"] = [score_entry(c) for c in result.children]
    if result.details:
        entry["details"] = result.details
    return entry


def v4_fields(case: Any, results: list[EvaluatorResult], usage: Any,
              duration_ms: float | None, messages: list | None = None) -> dict[str, Any]:
    """AgentV 4.x's keys of a graded test (the record's ``score`` is 4.x's)."""
    outcome = case_outcome(results, case.evaluators, case.threshold)
    out: dict[str, Any] = {"test_id": case.id, "suite": case.dataset,
                           "category": case.category or "Uncategorized"}
    if case.conversation_id:
        out["conversation_id"] = case.conversation_id
    out["score"] = outcome.score
    out.update(usage_fields(usage, duration_ms))
    out.update(span_times(messages or []))
    if not all(getattr(e, "implicit", False) for e in case.evaluators):
        out["scores"] = [score_entry(r) for r in results]
    out["execution_status"] = outcome.execution_status
    out["verdict"] = STATUS_VERDICTS[outcome.execution_status]  # the summary's; not written
    if outcome.error:
        out.update(error=outcome.error, failure_stage=outcome.failure_stage,
                   failure_reason_code=outcome.failure_reason_code)
    if case.metadata:
        out["metadata"] = case.metadata
    out[FORMAT_KEY] = FORMAT
    return out


def v4_error_fields(case: Any, message: str) -> dict[str, Any]:
    """AgentV 4.x's keys of a test whose target failed."""
    out: dict[str, Any] = {"test_id": case.id, "suite": case.dataset,
                           "category": case.category or "Uncategorized"}
    if case.conversation_id:
        out["conversation_id"] = case.conversation_id
    out.update(score=0.0, execution_status="execution_error", verdict="error", error=message,
               failure_stage="agent", failure_reason_code="provider_error")
    if case.metadata:
        out["metadata"] = case.metadata
    out[FORMAT_KEY] = FORMAT
    return out


def usage_fields(usage: Any, duration_ms: float | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if usage is not None and (usage.input_tokens is not None
                              or usage.output_tokens is not None):
        out["token_usage"] = {"input": usage.input_tokens or 0,
                              "output": usage.output_tokens or 0,
                              **({"cached": usage.cached_tokens}
                                 if usage.cached_tokens is not None else {})}
    if usage is not None and usage.cost_usd is not None:
        out["cost_usd"] = usage.cost_usd
    if duration_ms is not None:
        out["duration_ms"] = round(duration_ms)
    return out


def _instant(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def span_times(messages: list) -> dict[str, str]:
    """AgentV's ``start_time`` / ``end_time``: the earliest start and latest end of the
    answer's messages and tool calls, when the agent reported them."""
    starts, ends = [], []
    for message in messages:
        if not isinstance(message, dict):
            continue
        calls = message.get("tool_calls") or message.get("toolCalls") or []
        for item in (message, *[c for c in calls if isinstance(c, dict)]):
            starts.append(_instant(item.get("start_time", item.get("startTime"))))
            ends.append(_instant(item.get("end_time", item.get("endTime"))))
    out = {}
    if any(starts):
        out["start_time"] = _iso(min(t for t in starts if t))
    if any(ends):
        out["end_time"] = _iso(max(t for t in ends if t))
    return out


def _iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + \
        f"{moment.microsecond // 1000:03d}Z"
