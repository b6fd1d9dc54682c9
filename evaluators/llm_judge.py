"""``llm_judge`` (v2) and ``llm-grader`` (AgentV 4.x): the case's judge scores the answer.

One class. `prompt` is inline text or a template file (relative to the eval file), or
``{command: [...], config}``, a script that prints the prompt (AgentV 4.42.4's JSON payload on
stdin). The generation (``Generation``, chosen once by the suite's loader:
``base.agentv4_rules``) is the judge's contract — its prompts, template variables, reply shape
and record:

- v2: ``{{ question }}``, ``{{ candidate_answer }}``, ``{{ expected_outcome }}`` … in AgentV
  2's template; the reply ``{score, hits, misses, reasoning}`` is parsed leniently (the first
  JSON object; prose around it is normal), hits/misses trimmed, non-empty, at most 4. Only a
  custom prompt that declares a 0-10 scale (``0-10``, ``0 to 10``, ``out of 10``, ``/10``) has
  its scores divided by 10; a score outside the scale (``score: 7``) is named, never clamped.
- 4.x: ``{{output}}``, ``{{input}}``, ``{{criteria}}``, ``{{expected_output}}``,
  ``{{metadata}}`` …; inline text using none of them is criteria put into AgentV 4.42.4's
  default template. The reply ``{score, assertions[], details?}`` (code fences stripped; the
  first 8 assertions kept) is recorded with its assertions and details.

A reply that breaks the contract is asked again (``evaluators.judge_call``): v2 once, with a
reminder; 4.x as 4.42.4 does, the same prompt three times and then a request to repair the
last reply. A judge that still breaks it is this evaluator's error (4.x: the grader is
skipped, as 4.42.4).
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable

from pydantic import AliasChoices, BaseModel, Field, PrivateAttr, ValidationInfo, model_validator

from agentv.evaluators.base import (
    EvalContext,
    Evaluator,
    EvaluatorResult,
    agentv4_rules,
    clamp01,
)
from agentv.evaluators.jsonutil import clean_items, first_json_object
from agentv.evaluators.judge_call import (
    REASK_ONCE,
    BrokenReply,
    JudgeAsk,
    JudgeReply,
    Reasking,
    ask_judge,
    judged,
    judged_fields,
)
from agentv.evaluators.judge_prompts import (
    CONTRACT,
    CONTRACT_4,
    DEFAULT_TEMPLATE,
    SYSTEM_4,
    SYSTEM_PROMPT,
    TEMPLATE_4,
    repair_prompt_4,
)
from agentv.providers.base import JudgeInputs

_VAR = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def render_template(template: str, values: dict[str, str]) -> str:
    """Replace ``{{ name }}`` placeholders; unknown names are left as written."""
    return _VAR.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def template_values(ctx: EvalContext) -> dict[str, str]:
    question = ctx.question  # AgentV's question: the @[Role] transcript when multi-turn
    return {
        "expected_outcome": ctx.expected_outcome, "outcome": ctx.expected_outcome,
        "question": question, "request": question, "task": question,
        "reference_answer": ctx.reference_answer, "expected": ctx.reference_answer,
        "candidate_answer": ctx.candidate_answer, "generated_answer": ctx.candidate_answer,
        "output": ctx.candidate_answer,
    }


_TEN_POINT = re.compile(r"\b0(?:\.0)?\s*(?:-|–|to)\s*10\b|\bout of 10\b|/\s*10\b", re.I)


def declares_ten_point_scale(template: str) -> bool:
    """The prompt asks for a score from 0 to 10 (``0-10``, ``0 to 10``, ``out of 10``)."""
    return bool(_TEN_POINT.search(template))


def parse_verdict(text: str, scale: float = 1.0
                  ) -> tuple[float, list[str], list[str], str, bool]:
    """(score, hits, misses, reasoning, ok); ok=False when no valid JSON verdict was found.
    ``scale``: the top of the score scale the prompt declared (10: divided by 10). A score
    outside it raises ``BrokenReply`` naming the scale."""
    data = first_json_object(text)
    if data is None or not isinstance(data.get("score"), (int, float)) \
            or isinstance(data.get("score"), bool):
        return 0.0, [], [], "", False
    score = float(data["score"])
    if math.isfinite(score) and not 0 <= score <= scale:
        top = "1" if scale == 1 else f"{scale:g}"
        raise BrokenReply(f"score {data['score']!r} is outside the 0-{top} scale"
                          + (" (a 0-10 scale? say so in the judge prompt: 'score from 0 to "
                             "10')" if scale == 1 and score <= 10 else ""))
    reasoning = data.get("reasoning")
    return (clamp01(score / scale), clean_items(data.get("hits")),
            clean_items(data.get("misses")), reasoning if isinstance(reasoning, str) else "",
            True)


Verdict = tuple[float, list[str], list[str], str]


def verdict_of(text: str, scale: float = 1.0) -> Verdict | None:
    """The judge's (score, hits, misses, reasoning); None when the reply has no verdict."""
    score, hits, misses, reasoning, ok = parse_verdict(text, scale)
    return (score, hits, misses, reasoning) if ok else None


def load_prompt(prompt: str | None, base_dir: str) -> str | None:
    """``prompt`` is inline text or a path (relative to the eval file) to a template."""
    if not prompt:
        return None
    if "\n" not in prompt and len(prompt) < 512:
        path = Path(base_dir) / prompt
        if path.suffix in (".md", ".txt", ".prompt", ".j2", ".jinja") or path.is_file():
            if not path.is_file():
                raise FileNotFoundError(f"judge prompt file not found: {path}")
            return path.read_text(encoding="utf-8")
    return prompt


def judge_inputs(ctx: EvalContext) -> JudgeInputs:
    """What the judge is asked about, as data (the offline heuristic judge reads it)."""
    return JudgeInputs(candidate_answer=ctx.candidate_answer,
                       expected_outcome=ctx.expected_outcome,
                       reference_answer=ctx.reference_answer)


# ------------------------------------------------------------------ 4.x: {score, assertions}
VARIABLES = ("expected_output", "criteria", "metadata", "metadata_json", "rubrics",
             "rubrics_json", "input", "output", "file_changes", "tool_calls")
MAX_ASSERTIONS = 8


def grader_values(ctx: EvalContext, criteria: str) -> dict[str, str]:
    """AgentV 4.42.4's template variables."""
    meta = ctx.case_metadata or {}
    return {"input": ctx.question.strip(), "output": ctx.candidate_answer.strip(),
            "expected_output": ctx.reference_answer.strip(), "criteria": criteria.strip(),
            "metadata": json.dumps(meta, indent=2) if meta else "",
            "metadata_json": json.dumps(meta) if meta else "", "rubrics": "",
            "rubrics_json": "", "file_changes": "", "tool_calls": ""}


def uses_variables(text: str) -> bool:
    return any(m.group(1) in VARIABLES for m in _VAR.finditer(text))


def parse_reply(text: str, scale: float = 1.0) -> dict[str, Any] | None:
    """4.x's reply: a JSON object with a 0-1 ``score`` (code fences allowed); else None."""
    data = first_json_object(text.replace("```json", "").replace("```", ""))
    score = data.get("score") if isinstance(data, dict) else None
    if isinstance(score, bool) or not isinstance(score, (int, float)) \
            or not math.isfinite(score) or not 0 <= score <= 1:
        return None
    return data


# ------------------------------------------------------------------ the generations
@dataclass(frozen=True)
class Generation:
    """A generation's judge contract: its prompts, template variables (given the criteria),
    whether inline text without a variable is criteria, its 0-10 rule, reply and record."""
    system: str
    template: str
    contract: str
    values: Callable[[EvalContext, str], dict[str, str]]
    inline_criteria: bool
    ten_point: bool
    parse: Callable[..., Any]  # (reply text, scale=) -> verdict | None
    record: Callable[["LlmJudge", JudgeReply[Any]], EvaluatorResult]
    reasking: Reasking = REASK_ONCE


def _record_verdict(judge: LlmJudge, reply: JudgeReply[Any]) -> EvaluatorResult:
    return judged(judge, reply, *reply.verdict)


def _record_assertions(judge: LlmJudge, reply: JudgeReply[Any]) -> EvaluatorResult:
    from agentv.evaluators.code import assertion_items
    data = reply.verdict
    items = assertion_items(data.get("assertions"))[:MAX_ASSERTIONS]
    details = data.get("details") if isinstance(data.get("details"), dict) else None
    return judge.result(float(data["score"]), hits=[a["text"] for a in items if a["passed"]],
                        misses=[a["text"] for a in items if not a["passed"]],
                        assertions=items, details=details, **judged_fields(reply))


V2 = Generation(SYSTEM_PROMPT, DEFAULT_TEMPLATE, CONTRACT, lambda ctx, _: template_values(ctx),
                inline_criteria=False, ten_point=True, parse=verdict_of,
                record=_record_verdict)
REASK_4 = Reasking(asks=3, continued=False, repair=repair_prompt_4)  # 4.42.4's runWithRetry
AGENTV4 = Generation(SYSTEM_4, TEMPLATE_4, CONTRACT_4, grader_values, inline_criteria=True,
                     ten_point=False, parse=parse_reply, record=_record_assertions,
                     reasking=REASK_4)


class PromptScript(BaseModel):
    """A script that prints the judge prompt (``{command: [...], config}``)."""
    command: list[str] = Field(min_length=1)
    config: dict[str, Any] | None = None


class LlmJudge(Evaluator):
    """An LLM judge grades the answer (`llm_judge`, 4.x `llm-grader`): v2's `{score, hits,
    misses, reasoning}` or 4.x's `{score, assertions, details}`; `prompt` is inline text, a
    template file or a `{command}` script; given `rubrics` it grades like `rubric`."""
    kind = "llm_judge"
    uses_judge = True
    # inline text, a template file or a script; ``promptPath`` / ``prompt_path``: AgentV's
    prompt: str | PromptScript | None = Field(
        default=None, validation_alias=AliasChoices("prompt", "promptPath", "prompt_path"))
    target: str | None = None  # optional judge target override
    _generation: Generation = PrivateAttr(default=V2)

    @model_validator(mode="after")
    def _pick_generation(self, info: ValidationInfo) -> "LlmJudge":
        self._generation = AGENTV4 if agentv4_rules(info) else V2
        return self

    async def template(self, ctx: EvalContext) -> tuple[str, str]:
        """(template, criteria) for this case."""
        generation = self._generation
        if isinstance(self.prompt, PromptScript):
            return await self.scripted(ctx, self.prompt), ctx.expected_outcome
        text = load_prompt(self.prompt, self.base_dir)
        if not text:
            return generation.template, ctx.expected_outcome
        if generation.inline_criteria and text == self.prompt and not uses_variables(text):
            return generation.template, text  # bare inline criteria
        return text, ctx.expected_outcome

    async def scripted(self, ctx: EvalContext, script: PromptScript) -> str:
        """The prompt a script prints, given AgentV 4.42.4's payload on stdin."""
        from agentv.evaluators.code import grader_payload
        from agentv.providers.process.environment import child_env
        from agentv.providers.process.supervision import run_process
        payload = grader_payload(ctx, script.config or {})
        payload["answer"] = payload["output"]
        proc = await run_process(script.command, cwd=self.base_dir, env=child_env(),
                                 stdin=json.dumps(payload), timeout=60.0)
        if proc.returncode != 0:
            raise RuntimeError(f"prompt script exited with code {proc.returncode}: "
                               f"{(proc.stderr or '').strip()[-300:]}")
        return proc.stdout

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        generation = self._generation
        template, criteria = await self.template(ctx)
        ten = generation.ten_point and bool(self.prompt) and declares_ten_point_scale(template)
        prompt = render_template(template, generation.values(ctx, criteria))
        reply = await ask_judge(ctx, JudgeAsk(generation.system, prompt, generation.contract,
                                              judge_inputs(ctx),
                                              reasking=generation.reasking),
                                partial(generation.parse, scale=10.0 if ten else 1.0))
        return generation.record(self, reply)
