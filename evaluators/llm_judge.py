"""``llm_judge``: AgentV's LLM-as-judge with the strict {score, hits, misses, reasoning} contract.

The reply is parsed leniently (the first JSON object in it; prose around it is normal),
hits/misses trimmed, non-empty, at most 4. A reply without a valid JSON verdict, or with a
score outside 0-1 (``score: 7``: another scale), is asked again once, then it is this
evaluator's error naming the problem (``evaluators.judge_call``) — never clamped. Only a
custom prompt that declares a 0-10 scale (``0-10``, ``0 to 10``, ``out of 10``, ``/10``) has
its scores divided by 10.
"""
from __future__ import annotations

import math
import re
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, Field

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult, clamp01
from agentv.evaluators.jsonutil import first_json_object
from agentv.evaluators.judge_call import BrokenReply, JudgeAsk, ask_judge, judged
from agentv.providers.base import JudgeInputs

SYSTEM_PROMPT = """You must respond with a single JSON object matching this schema:

{
  "score": <number between 0.0 and 1.0>,
  "hits": [<array of strings, max 4 items, brief specific achievements>],
  "misses": [<array of strings, max 4 items, brief specific failures or omissions, empty if none>],
  "reasoning": "<string, concise explanation for the score, 1-2 sentences max>"
}"""

DEFAULT_TEMPLATE = """You are an expert evaluator. Your goal is to grade the candidate_answer based on how well it achieves the expected_outcome for the original task.

Use the reference_answer as a gold standard for a high-quality response (if provided). The reference_answer may be a simple text response, or it may contain a sequence of expected agent messages including tool calls. When it contains multiple messages, the last message represents the final expected answer. The candidate_answer does not need to match it verbatim, but should capture the key points and follow the same spirit.

Be concise and focused in your evaluation. Provide succinct, specific feedback rather than verbose explanations.

[[ ## expected_outcome ## ]]
{{ expected_outcome }}

[[ ## question ## ]]
{{ question }}

[[ ## reference_answer ## ]]
{{ reference_answer }}

[[ ## candidate_answer ## ]]
{{ candidate_answer }}"""

CONTRACT = 'a JSON object {"score": <0.0-1.0>, "hits": [...], "misses": [...], "reasoning": "..."}'
MAX_ITEMS = 4
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


def clean_items(items: Any) -> list[str]:
    if not isinstance(items, list):
        return []
    out = [str(i).strip() for i in items if i is not None and str(i).strip()]
    return out[:MAX_ITEMS]


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


class LlmJudge(Evaluator):
    """An LLM judge grades the answer: its `{score, hits, misses, reasoning}`; `prompt` is
    inline text or a template file; given `rubrics` it grades like `rubric`."""
    kind = "llm_judge"
    uses_judge = True
    # inline text or a template file; ``promptPath`` / ``prompt_path`` are AgentV's spellings
    prompt: str | None = Field(default=None,
                               validation_alias=AliasChoices("prompt", "promptPath", "prompt_path"))
    target: str | None = None  # optional judge target override

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        template = load_prompt(self.prompt, self.base_dir) or DEFAULT_TEMPLATE
        user_prompt = render_template(template, template_values(ctx))
        reply = await ask_judge(ctx, JudgeAsk(SYSTEM_PROMPT, user_prompt, CONTRACT,
                                              judge_inputs(ctx)),
                                partial(verdict_of, scale=10.0 if self.prompt and
                                        declares_ten_point_scale(template) else 1.0))
        return judged(self, reply, *reply.verdict)
