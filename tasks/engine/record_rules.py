"""A record's generation rules, chosen once per case by its file's format (a lookup, never an
``if format ==`` in the runner): what the record holds besides the common fields, how a score
and a failure finish it, and what the run folder's trace needs (``run_trace``, never written).
agentv-eval-v2 keeps its ``expected_outcome`` and the run's per-file pass mark (``verdict``);
AgentV 4.x writes AgentV 4.42.4's keys, score and ``execution_status``
(``tasks.engine.record4``)."""
from __future__ import annotations

from typing import Any, Sequence

from agentv.evaluators.base import EvaluatorResult
from agentv.tasks.engine.record4 import v4_error_fields, v4_fields
from agentv.tasks.load.generation import FORMAT


class V2Rules:
    """agentv-eval-v2 (and anything not AgentV 4.x)."""

    def base(self, case: Any) -> dict[str, Any]:
        return {"expected_outcome": case.expected_outcome} if case.expected_outcome else {}

    def trace_source(self, case: Any, provider: str | None) -> dict[str, Any]:
        """What the run folder's trace of the case needs besides the record (not written)."""
        return {}

    def scored(self, record: dict[str, Any], case: Any, results: Sequence[EvaluatorResult],
               usage: Any, duration: float | None, output_messages: Any,
               mark: float | None) -> None:
        if mark is not None:  # AgentV's per-test threshold
            record["verdict"] = "pass" if record["score"] >= mark else "fail"

    def failed(self, record: dict[str, Any], case: Any, message: str) -> None:
        return None


class V4Rules(V2Rules):
    """AgentV 4.x: its keys only, its score, status and verdicts."""

    def base(self, case: Any) -> dict[str, Any]:
        return {}

    def trace_source(self, case: Any, provider: str | None) -> dict[str, Any]:
        return {"run_trace": {"file": case.file, "provider": provider,
                              "inputs": [m.to_dict() for m in case.input_messages]}}

    def scored(self, record: dict[str, Any], case: Any, results: Sequence[EvaluatorResult],
               usage: Any, duration: float | None, output_messages: Any,
               mark: float | None) -> None:
        record.update(v4_fields(case, list(results), usage, duration, output_messages))
        if isinstance(record.get("run_trace"), dict):  # the answer's messages, for its trace
            record["run_trace"]["outputs"] = output_messages

    def failed(self, record: dict[str, Any], case: Any, message: str) -> None:
        record.update(v4_error_fields(case, message))


RULES: dict[str, V2Rules] = {FORMAT: V4Rules()}
DEFAULT = V2Rules()


def rules_for(case: Any) -> V2Rules:
    return RULES.get(case.format, DEFAULT)
