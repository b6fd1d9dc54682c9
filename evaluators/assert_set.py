"""AgentV 4.x's ``composite`` (alias ``assert-set``): member assertions scored together.

Members run at once; ``aggregator`` is ``weighted_average`` (default; ``weights`` by member
name, default 1) or ``threshold`` (the share of members whose verdict is pass; the composite
passes at ``threshold`` or more). Members that skipped (a judge that could not grade) are left
out; when all skipped, the composite skips. Members run as written: their own ``negate``,
``required``, ``min_score`` and ``weight`` are not applied (AgentV applies them to a test's
assertions only; a member's weight is the aggregator's ``weights`` entry). An error in a
deterministic member (a regex JavaScript rejects) fails the whole composite — it scores 0 as
an evaluator error — as AgentV's composite throws; judges and scripts keep theirs. As AgentV
4.42.4 (``graders/composite.ts``).
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


#: the graders AgentV runs in-process without catching: an error in one rejects the composite
THROWING = frozenset({"contains", "icontains", "contains-any", "contains-all", "icontains-any",
                      "icontains-all", "starts-with", "ends-with", "equals", "regex", "is-json",
                      "field-accuracy", "latency", "cost", "token-usage", "execution-metrics",
                      "tool-trajectory", "composite"})


async def run_member(member: Any, ctx: EvalContext) -> EvaluatorResult:
    """The member as AgentV runs it: its inner grader under its name and type, without its
    own ``negate`` (nor weight, required, min_score); a deterministic grader's error raises."""
    inner = getattr(member, "inner", member)
    kind = member.type or inner.type
    result = await (inner.evaluate(ctx) if kind in THROWING else run_evaluator(inner, ctx))
    result.name, result.type = member.label, kind
    return result


class AssertSet(Evaluator):
    """Member assertions scored as one (`aggregator`: weighted_average with `weights`, or
    threshold: the share of passing members)."""
    kind = "composite"
    members: list[Any] = Field(default_factory=list)
    aggregator: Aggregator = Field(default_factory=Aggregator)

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        done = await asyncio.gather(*(run_member(m, ctx) for m in self.members),
                                    return_exceptions=True)
        for outcome in done:  # AgentV's Promise.all: the composite itself fails
            if isinstance(outcome, BaseException):
                raise outcome
        results: list[EvaluatorResult] = [r for r in done if isinstance(r, EvaluatorResult)]
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
