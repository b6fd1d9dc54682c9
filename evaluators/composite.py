"""``composite``: member ``evaluators`` combined by an ``aggregator`` (AgentV semantics).

Aggregators: ``weighted_average {weights: {member: w}}`` (the default; a member missing
from ``weights`` keeps its own ``weight``), ``code_judge {path}`` (a script that gets
``{"results": {member: result}, ...case fields}`` on stdin and prints a verdict), and
``llm_judge {prompt}`` (a judge prompt with ``{{EVALUATOR_RESULTS_JSON}}``). Members run
concurrently, each isolated; composites nest; unnamed members get generated names.
"""
from __future__ import annotations

import json
from typing import Annotated, ClassVar, Literal, Union

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationInfo, model_validator

from agentv.evaluators.base import EvalContext, EvaluatorResult, error_result, verdict_for
from agentv.evaluators.members import (
    WithMembers,
    joined_reasoning,
    member_summary,
    prefixed,
    run_members,
)

DEFAULT_AGGREGATOR_PROMPT = """Review the results of the evaluators below:
{{EVALUATOR_RESULTS_JSON}}

Decide the final score from all of them: weigh their scores, hits and misses, and explain
the decision briefly."""


class WeightedAverage(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: Literal["weighted_average"] = "weighted_average"
    weights: dict[str, Annotated[float, Field(ge=0)]] | None = None


class CodeAggregator(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: Literal["code_judge", "code"]
    path: str | list[str] = Field(validation_alias=AliasChoices("path", "script"))
    cwd: str | None = None
    timeout_seconds: float = Field(default=60.0, gt=0)


class LlmAggregator(BaseModel):
    model_config = ConfigDict(extra="allow")
    uses_judge: ClassVar[bool] = True
    type: Literal["llm_judge"]
    prompt: str | None = None


Aggregator = Annotated[Union[WeightedAverage, CodeAggregator, LlmAggregator],
                       Field(discriminator="type")]


class Composite(WithMembers):
    """Member `evaluators` (nestable) combined by an `aggregator` (see Composite aggregators
    below)."""
    kind = "composite"
    aggregator: Aggregator = Field(default_factory=WeightedAverage)

    @model_validator(mode="after")
    def _build(self, info: ValidationInfo) -> "Composite":
        self.build_own_members(info)
        weights = getattr(self.aggregator, "weights", None) or {}
        names = [m.label for m in self._members]
        unknown = sorted(set(weights) - set(names))
        if unknown:
            raise ValueError(f"aggregator weights name unknown member(s) {', '.join(unknown)} "
                             f"(members: {', '.join(names)})")
        extra = sorted((self.aggregator.model_extra or {}).keys())
        warn = (info.context or {}).get("warn")
        if extra and warn:
            warn(f"{(info.context or {}).get('where', '')}: unknown key(s) {', '.join(extra)} "
                 f"in aggregator of '{self.label}' (ignored)")
        return self

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        results = await run_members(self._members, ctx)
        agg = self.aggregator
        if isinstance(agg, CodeAggregator):
            return await self._by_script(agg, results, ctx)
        if isinstance(agg, LlmAggregator):
            return await self._by_judge(agg, results, ctx)
        return self._weighted(agg, results)

    def _weighted(self, agg: WeightedAverage, results: list[EvaluatorResult]) -> EvaluatorResult:
        weights = agg.weights or {}
        for r, member in zip(results, self._members):
            r.weight = weights.get(r.name, member.weight)
        total = sum(r.weight for r in results)
        score = sum(r.score * r.weight for r in results) / total if total > 0 else 0.0
        return self.result(score, prefixed(results, "hits"), prefixed(results, "misses"),
                           joined_reasoning(results), children=results,
                           evaluator_provider_request={"aggregator": "weighted_average",
                                                       "weights": weights or None})

    async def _by_script(self, agg: CodeAggregator, results: list[EvaluatorResult],
                         ctx: EvalContext) -> EvaluatorResult:
        from agentv.evaluators.code import CodeJudge, judge_payload  # lazy: subprocess machinery

        judge = CodeJudge(name=self.label, script=agg.path, cwd=agg.cwd, base_dir=self.base_dir,
                          timeout_seconds=agg.timeout_seconds)
        payload = {**judge_payload(ctx), "results": {r.name: member_summary(r) for r in results}}
        out = await judge.run_script(payload)
        details = dict(out.details or {})
        verdict = details.pop("verdict", None)
        verdict = verdict if verdict in ("pass", "borderline", "fail") else verdict_for(out.score)
        return self.result(out.score, out.hits, out.misses, out.reasoning, verdict=verdict,
                           children=results, error=out.error, details=details or None,
                           evaluator_provider_request={"aggregator": "code_judge",
                                                       "script": agg.path})

    async def _by_judge(self, agg: LlmAggregator, results: list[EvaluatorResult],
                        ctx: EvalContext) -> EvaluatorResult:
        from agentv.evaluators.judge_call import JudgeAsk, JudgeError, ask_judge, judged
        from agentv.evaluators.llm_judge import (
            CONTRACT,
            SYSTEM_PROMPT,
            load_prompt,
            render_template,
            template_values,
            verdict_of,
        )

        results_json = json.dumps({r.name: member_summary(r) for r in results}, indent=2)
        template = load_prompt(agg.prompt, self.base_dir) or DEFAULT_AGGREGATOR_PROMPT
        if "EVALUATOR_RESULTS_JSON" not in template:
            template += "\n\n[[ ## evaluator_results ## ]]\n{{EVALUATOR_RESULTS_JSON}}"
        prompt = render_template(template, {**template_values(ctx),
                                            "EVALUATOR_RESULTS_JSON": results_json})
        ask = JudgeAsk(SYSTEM_PROMPT, prompt, CONTRACT, recorded={"aggregator": "llm_judge"})
        try:
            reply = await ask_judge(ctx, ask, verdict_of)
        except JudgeError as err:  # the members' results stay in the record
            failed = error_result(self, err)
            failed.children = results
            return failed
        return judged(self, reply, *reply.verdict, children=results)
