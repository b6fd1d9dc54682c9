"""AgentV 4.x's ``composite`` (alias ``assert-set``): member assertions scored together.

Members run at once; ``aggregator`` is ``weighted_average`` (default; ``weights`` by member
name, default 1) or ``threshold`` (the share of members whose verdict is pass; the composite
passes at ``threshold`` or more). Members that skipped (a judge that could not grade) are left
out; when all skipped, the composite skips. As AgentV 4.42.4 (``graders/composite.ts``).
"""
from __future__ import annotations

import asyncio
from typing import Any, Literal

from pydantic import Field

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult, run_evaluator
from agentv.evaluators.outcome4 import grader_verdict
from agentv.providers.base_settings import NumbersNotText


class Aggregator(NumbersNotText):
    type: Literal["weighted_average", "threshold", "code_grader", "llm_grader"] = \
        "weighted_average"
    weights: dict[str, float] | None = None
    threshold: float = Field(default=0.5, ge=0, le=1)
    path: str | list[str] | None = None  # code_grader: the command
    prompt: str | None = None  # llm_grader: inline text or a prompt file

    @property
    def uses_judge(self) -> bool:
        return self.type == "llm_grader"


class AssertSet(Evaluator):
    """Member assertions scored as one (`aggregator`: weighted_average with `weights`, or
    threshold: the share of passing members)."""
    kind = "composite"
    members: list[Any] = Field(default_factory=list)
    aggregator: Aggregator = Field(default_factory=Aggregator)

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        results = list(await asyncio.gather(*(run_evaluator(m, ctx) for m in self.members)))
        verdicts = [grader_verdict(r) for r in results]
        kept = [(r, v) for r, v in zip(results, verdicts) if v != "skip"]
        if not kept:
            return self.result(0.0, verdict="skip", children=results,
                               assertions=[{"text": "All evaluators skipped (infrastructure "
                                            "failure)", "passed": False}],
                               error="all members skipped")
        items = [{**a, "text": f"[{r.name}] {a['text']}"} for r, _v in kept
                 for a in (r.assertions or [])]
        if self.aggregator.type in ("code_grader", "llm_grader"):
            return await self.aggregated(results, ctx)
        if self.aggregator.type == "threshold":
            passing = sum(v == "pass" for _r, v in kept)
            score = passing / len(kept)
            passed = score >= self.aggregator.threshold
            items.insert(0, {"text": f"{passing}/{len(kept)} evaluators passed (threshold: "
                                     f"{self.aggregator.threshold:g})", "passed": passed})
            return self.result(score, verdict="pass" if passed else "fail", children=results,
                               assertions=items)
        weights = self.aggregator.weights or {}
        total = sum(weights.get(r.name, 1.0) for r, _v in kept)
        score = (sum(r.score * weights.get(r.name, 1.0) for r, _v in kept) / total
                 if total > 0 else 0.0)
        for result in results:
            result.weight = weights.get(result.name, 1.0)
        return self.result(score, children=results, assertions=items)

    async def aggregated(self, results: list[EvaluatorResult], ctx: EvalContext
                         ) -> EvaluatorResult:
        from agentv.evaluators import assert_set_aggregators as agg
        if self.aggregator.type == "code_grader":
            score, verdict, items = await agg.by_script(self.aggregator.path or [],
                                                        self.base_dir, results)
            return self.result(score, children=results, assertions=items,
                               verdict=verdict or "")
        score, items = await agg.by_judge(self.aggregator.prompt, self.base_dir, results, ctx)
        return self.result(score, children=results, assertions=items)
