"""An AgentV 4.x assertion type AgentV 4.42.4 loads but cannot grade: ``assert-set`` (an older
spelling of ``composite`` its registry no longer has). 4.42.4 keeps the file and scores the
assertion 0 (verdict fail, "Unknown grader type"); so does agentv, with a warning at load."""
from __future__ import annotations

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult


class UnknownType(Evaluator):
    """Always 0: the written type is not one AgentV 4.42.4 can run."""
    kind = "unknown"
    written: str

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        text = f"Grader '{self.label}' failed: Unknown grader type: \"{self.written}\""
        return self.result(0.0, misses=[text], verdict="fail",
                           assertions=[{"text": text, "passed": False}])
