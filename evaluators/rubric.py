"""``rubric`` and case-level ``rubrics``: the LLM judge grades the answer item by item.

Items are strings or ``{id, expected_outcome|description, weight, required,
required_min_score (0–10), score_ranges}``. Checklist mode: the judge says per item
whether it is satisfied; score = satisfied weight / total weight, and a failed
``required`` item (the default for checklist items) caps the verdict at fail.
Score-range mode (any item has ``score_ranges``): the judge gives each item an integer
0–10; score = weighted mean of score/10, and an item below its ``required_min_score``
(``required: true`` means 10) fails the verdict. ``rubric_evaluator_for`` builds the
evaluator the loader adds for a case's ``rubrics``.
"""
from __future__ import annotations

from typing import Any, Callable

from pydantic import PrivateAttr, ValidationInfo, field_validator, model_validator

from agentv.evaluators.base import (
    EvalContext,
    Evaluator,
    EvaluatorResult,
    agentv4_rules,
    verdict_for,
)
from agentv.evaluators.jsonutil import first_json_object
from agentv.evaluators.judge_call import REASK_ONCE, JudgeAsk, Reasking, ask_judge, judged
from agentv.evaluators.llm_judge import REASK_4, judge_inputs, template_values
from agentv.evaluators.rubric_items import RubricItem, items_from, parse_rubrics, warn_unknown_keys
from agentv.providers.base import RubricCheck

CHECKLIST_SYSTEM = """You are an expert evaluator. Evaluate the candidate answer against each rubric item.
You must return a valid JSON object matching this schema:
{
  "checks": [
    {"id": "string (rubric id)", "satisfied": boolean, "reasoning": "string (brief explanation)"}
  ],
  "overall_reasoning": "string (summary)"
}"""

RANGES_SYSTEM = """You are an expert evaluator. Score the candidate answer on each criterion.
You must return a valid JSON object matching this schema:
{
  "checks": [
    {"id": "string (criterion id)", "score": integer (0-10), "reasoning": "string (brief explanation)"}
  ],
  "overall_reasoning": "string (summary)"
}
Each "score" must be an integer from 0 to 10 inside one of the criterion's score ranges."""
CONTRACT = 'a JSON object {"checks": [{"id": ..., ...}], "overall_reasoning": "..."}'


class RubricEvaluator(Evaluator):
    """The LLM judge grades the answer item by item against `rubrics` (default: the case's
    `rubrics`; see Rubrics below)."""
    kind = "rubric"
    uses_judge = True
    rubrics: list[RubricItem] | None = None  # None: use the case's rubrics
    _reasking: Reasking = PrivateAttr(default=REASK_ONCE)

    @model_validator(mode="after")
    def _generation(self, info: ValidationInfo) -> "RubricEvaluator":
        """4.x (``rubrics``) asks a broken reply again as 4.42.4 does (llm_judge.REASK_4)."""
        self._reasking = REASK_4 if agentv4_rules(info) else REASK_ONCE
        return self

    def result(self, *args: Any, **kw: Any) -> EvaluatorResult:
        """Results are typed ``llm_judge``: AgentV runs ``type: rubric`` and case-level
        ``rubrics`` as an llm_judge with rubrics, and records them so."""
        out = super().result(*args, **kw)
        out.type = "llm_judge"
        return out

    @field_validator("rubrics", mode="before")
    @classmethod
    def _parse(cls, raw: Any, info: ValidationInfo) -> Any:
        if raw is None:
            return None
        items = parse_rubrics(raw)
        warn_unknown_keys(items, (info.context or {}).get("warn"),
                          (info.context or {}).get("where", ""))
        return items

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        items = self.rubrics if self.rubrics is not None else items_from(ctx.rubrics or [])
        if not items:
            raise ValueError("no rubrics: give the evaluator 'rubrics' or the case 'rubrics'")
        ranged = any(i.score_ranges for i in items)
        prompt = build_prompt(ctx, items, ranged)
        system = RANGES_SYSTEM if ranged else CHECKLIST_SYSTEM
        inputs = judge_inputs(ctx)
        inputs.rubric = [RubricCheck(i.id, i.expected_outcome) for i in items]
        inputs.ranged = ranged
        reply = await ask_judge(ctx, JudgeAsk(system, prompt, CONTRACT, inputs,
                                              reasking=self._reasking), checks_of)
        checks, overall = reply.verdict
        grade = grade_ranges if ranged else grade_checklist
        score, hits, misses, failed_required, details = grade(items, checks)
        verdict = "fail" if failed_required else verdict_for(score)
        return judged(self, reply, score, hits, misses, overall, verdict=verdict,
                      details=details)


def build_prompt(ctx: EvalContext, items: list[RubricItem], ranged: bool) -> str:
    values = template_values(ctx)
    intro = ("Score the candidate answer on each criterion below using its score ranges; "
             "give each an integer from 0 to 10." if ranged else
             "Evaluate the candidate answer against each rubric item below.")
    parts = [f"You are an expert evaluator. {intro}", "", "[[ ## question ## ]]",
             values["question"], "", "[[ ## expected_outcome ## ]]", ctx.expected_outcome, ""]
    if ctx.reference_answer.strip():
        parts += ["[[ ## reference_answer ## ]]", ctx.reference_answer, ""]
    parts += ["[[ ## candidate_answer ## ]]", ctx.candidate_answer, ""]
    if ranged:
        parts += ["[[ ## scoring_criteria ## ]]", *[line for i in items
                                                     for line in i.range_lines()]]
        parts += ["", "For each criterion, give an integer score 0-10 within its ranges."]
    else:
        parts += ["[[ ## rubrics ## ]]", *[i.checklist_line() for i in items]]
        parts += ["", "For each rubric, determine if it is satisfied and provide brief "
                      "reasoning."]
    return "\n".join(parts)


def checks_of(text: str) -> tuple[dict[str, dict[str, Any]], str] | None:
    """The judge's checks by rubric id and its overall reasoning; None without a checks list."""
    data = first_json_object(text or "")
    if not data or not isinstance(data.get("checks"), list):
        return None
    checks = {str(c.get("id")): c for c in data["checks"] if isinstance(c, dict)}
    overall = data.get("overall_reasoning")
    return checks, overall if isinstance(overall, str) else ""


def grade_checklist(items: list[RubricItem], checks: dict[str, dict[str, Any]]):
    hits, misses, total, earned, failed_required = [], [], 0.0, 0.0, False
    for item in items:
        check = checks.get(item.id)
        total += item.weight
        reason = _reason(check)
        if check is not None and check.get("satisfied") is True:
            earned += item.weight
            hits.append(f"[{item.id}] {item.label}{reason}")
        else:
            misses.append(f"[{item.id}] {item.label}{reason}")
            failed_required = failed_required or item.is_required
    score = earned / total if total > 0 else 0.0
    return score, hits, misses, failed_required, None


def grade_ranges(items: list[RubricItem], checks: dict[str, dict[str, Any]]):
    hits: list[str] = []
    misses: list[str] = []
    total, weighted, failed_required = 0.0, 0.0, False
    raw_scores: dict[str, int | None] = {}
    for item in items:
        raw = _raw_score(checks.get(item.id))
        raw_scores[item.id] = raw
        total += item.weight
        weighted += (raw or 0) / 10 * item.weight
        gate = item.min_score
        line = (f"[{item.id}] {item.label} - Score: "
                f"{'none' if raw is None else raw}/10{item.range_note(raw)}"
                f"{_reason(checks.get(item.id))}")
        below_gate = gate is not None and (raw is None or raw < gate)
        failed_required = failed_required or below_gate
        (hits if raw is not None and raw >= 7 and not below_gate else misses).append(line)
    score = weighted / total if total > 0 else 0.0
    details = {"raw_scores": raw_scores, "normalization": "score / 10",
               "aggregation": "weighted_average"}
    return score, hits, misses, failed_required, details


def _raw_score(check: dict[str, Any] | None) -> int | None:
    value = check.get("score") if check else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return max(0, min(10, round(value)))


def _reason(check: dict[str, Any] | None) -> str:
    if check is None:
        return ": no verdict from the judge"
    reasoning = check.get("reasoning")
    return f": {reasoning}" if isinstance(reasoning, str) and reasoning.strip() else ""


def rubric_evaluator_for(rubrics: list[Any], base_dir: str = ".", where: str = "",
                         warn: Callable[[str], None] | None = None) -> Evaluator:
    """The evaluator for a case-level ``rubrics`` list (named ``rubric``); invalid items
    raise ``ConfigError`` naming ``where`` and the field (e.g. ``rubrics.1.weight``)."""
    from agentv.evaluators.registry import build_evaluator

    return build_evaluator({"type": "rubric", "name": "rubric", "rubrics": rubrics},
                           base_dir=base_dir, where=where, warn=warn)
