"""AgentV 4.x's ``llm-grader``: the case's judge scores the answer.

`prompt` is a prompt file, inline text — a full template when it uses ``{{output}}``,
``{{input}}``, ``{{criteria}}``, ``{{expected_output}}``, ``{{metadata}}`` …, else criteria put
into AgentV 4.42.4's default template — or ``{command: [...], config}``, a script that prints
the prompt (AgentV's JSON payload on stdin). The judge answers ``{score, assertions[],
details?}`` (the first 8 assertions are kept); a reply that cannot be read, asked once more,
makes this grader skip (the case: an execution error), as in AgentV 4.42.4.
"""
from __future__ import annotations

import json
import math
import re
from typing import Any

from pydantic import BaseModel, Field

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult

SYSTEM = """You must respond with a single JSON object matching this schema:

{
  "score": <number between 0.0 and 1.0>,
  "assertions": [
    {
      "text": "<brief description of what was checked>",
      "passed": <boolean>,
      "evidence": "<concise evidence, 1-2 sentences, optional>"
    }
  ],
  "details": {<optional object with domain-specific structured metrics>}
}"""
TEMPLATE = """You are an expert grader. Your goal is to grade the answer based on how well it achieves the criteria for the original task.

Use the reference_answer as a gold standard for a high-quality response (if provided). The reference_answer may be a simple text response, or it may contain a sequence of expected agent messages including tool calls. When it contains multiple messages, the last message represents the final expected answer. The answer does not need to match it verbatim, but should capture the key points and follow the same spirit.

Be concise and focused in your evaluation. Provide succinct, specific feedback rather than verbose explanations.

[[ ## criteria ## ]]
{{criteria}}

[[ ## question ## ]]
{{input}}

[[ ## reference_answer ## ]]
{{expected_output}}

[[ ## answer ## ]]
{{output}}"""  # noqa: E501 - AgentV's text as it is
CONTRACT = 'a JSON object {"score": <0.0-1.0>, "assertions": [{"text": ..., "passed": ...}]}'
VARIABLES = ("expected_output", "criteria", "metadata", "metadata_json", "rubrics",
             "rubrics_json", "input", "output", "file_changes", "tool_calls")
_VAR = re.compile(r"\{\{\s*([a-zA-Z0-9_]+)\s*\}\}")


class PromptScript(BaseModel):
    command: list[str] = Field(min_length=1)
    config: dict[str, Any] | None = None


def template_values(ctx: EvalContext, criteria: str) -> dict[str, str]:
    meta = ctx.case_metadata or {}
    return {"input": ctx.question.strip(), "output": ctx.candidate_answer.strip(),
            "expected_output": ctx.reference_answer.strip(), "criteria": criteria.strip(),
            "metadata": json.dumps(meta, indent=2) if meta else "",
            "metadata_json": json.dumps(meta) if meta else "", "rubrics": "",
            "rubrics_json": "", "file_changes": "", "tool_calls": ""}


def uses_variables(text: str) -> bool:
    return any(m.group(1) in VARIABLES for m in _VAR.finditer(text))


def parse_reply(text: str) -> dict[str, Any] | None:
    from agentv.evaluators.jsonutil import first_json_object
    data = first_json_object(text.replace("```json", "").replace("```", ""))
    score = data.get("score") if isinstance(data, dict) else None
    if isinstance(score, bool) or not isinstance(score, (int, float)) \
            or not math.isfinite(score) or not 0 <= score <= 1:
        return None
    return data


class LlmGrader4(Evaluator):
    """The judge scores the answer (`prompt`: a file, inline text or a `{command}` script)."""
    kind = "llm-grader"
    uses_judge = True
    prompt: str | PromptScript | None = None
    target: str | None = None

    async def template(self, ctx: EvalContext) -> tuple[str, str]:
        """(template, criteria) for this case."""
        if isinstance(self.prompt, PromptScript):
            return await self.scripted(ctx), ctx.expected_outcome
        from agentv.evaluators.llm_judge import load_prompt
        text = load_prompt(self.prompt, self.base_dir)
        if text is None:
            return TEMPLATE, ctx.expected_outcome
        if text != self.prompt or uses_variables(text):
            return text, ctx.expected_outcome
        return TEMPLATE, text  # bare inline criteria

    async def scripted(self, ctx: EvalContext) -> str:
        from agentv.evaluators.code import grader_payload
        from agentv.providers.process.environment import child_env
        from agentv.providers.process.supervision import run_process
        assert isinstance(self.prompt, PromptScript)
        payload = grader_payload(ctx, self.prompt.config or {})
        payload["answer"] = payload["output"]
        proc = await run_process(self.prompt.command, cwd=self.base_dir, env=child_env(),
                                 stdin=json.dumps(payload), timeout=60.0)
        if proc.returncode != 0:
            raise RuntimeError(f"prompt script exited with code {proc.returncode}: "
                               f"{(proc.stderr or '').strip()[-300:]}")
        return proc.stdout

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        from agentv.evaluators.judge_call import JudgeAsk, ask_judge, judged_fields
        from agentv.evaluators.llm_judge import judge_inputs
        template, criteria = await self.template(ctx)
        values = template_values(ctx, criteria)
        prompt = _VAR.sub(lambda m: values.get(m.group(1), m.group(0)), template)
        reply = await ask_judge(ctx, JudgeAsk(SYSTEM, prompt, CONTRACT, judge_inputs(ctx)),
                                parse_reply)
        data = reply.verdict
        items = [{"text": str(a["text"]), "passed": bool(a.get("passed")),
                  **({"evidence": a["evidence"]} if isinstance(a.get("evidence"), str) else {})}
                 for a in data.get("assertions") or [] if isinstance(a, dict)
                 and isinstance(a.get("text"), str)][:8]
        details = data.get("details") if isinstance(data.get("details"), dict) else None
        return self.result(float(data["score"]), hits=[a["text"] for a in items if a["passed"]],
                           misses=[a["text"] for a in items if not a["passed"]],
                           assertions=items, details=details, **judged_fields(reply))
