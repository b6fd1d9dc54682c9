"""AgentV 4.x's ``skill-trigger``: did the agent use the skill `skill` (`should_trigger`
true, the default) — or rightly not (`should_trigger: false`)?

A call of a ``Skill`` tool whose ``skill`` argument contains the name, a ``Read`` of a path
containing ``skills/<skill>/``, or a tool output naming that path counts (AgentV 4.42.4's
``graders/skill-trigger.ts``); tool calls come from the case's trace.
"""
from __future__ import annotations

import json

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult
from agentv.evaluators.session import session_from_context


class SkillTrigger(Evaluator):
    """The agent invoked skill `skill` (or, with `should_trigger: false`, did not)."""
    kind = "skill-trigger"
    skill: str
    should_trigger: bool = True

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        calls = session_from_context(ctx).tool_calls()
        evidence = next((e for e in (self._evidence(c) for c in calls) if e), "")
        passed = bool(evidence) == self.should_trigger
        if passed:
            text = (evidence or f'Skill "{self.skill}" triggered as expected'
                    if self.should_trigger else f'Skill "{self.skill}" correctly did not trigger')
        elif self.should_trigger:
            text = (f'Skill "{self.skill}" not found in {len(calls)} tool call(s)' if calls
                    else "No tool calls recorded")
        else:
            text = evidence or f'Skill "{self.skill}" triggered unexpectedly'
        return self.result(1.0 if passed else 0.0, hits=[text] if passed else [],
                           misses=[] if passed else [text], verdict="pass" if passed else "fail",
                           assertions=[{"text": text, "passed": passed}])

    def _evidence(self, call) -> str:
        name = (call.name or "").lower()
        args = call.arguments if isinstance(call.arguments, dict) else {}
        if name == "skill" and self.skill in str(args.get("skill", "")):
            return f'Skill tool invoked with skill="{args.get("skill")}"'
        if name == "read":
            path = str(args.get("file_path") or args.get("path") or "")
            if f"skills/{self.skill}/" in path:
                return f"Read tool loaded skill file: {path}"
        output = call.result
        if output is not None:
            shown = output if isinstance(output, str) else json.dumps(output)
            if f"skills/{self.skill}/" in shown:
                return f'Tool "{call.name}" output referenced skill file for "{self.skill}"'
        return ""
