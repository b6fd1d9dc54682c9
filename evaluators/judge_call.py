"""The one judge call every LLM-based evaluator makes (llm_judge, rubric, composite's
llm_judge aggregator, categorical_judge): prompt → the case's judge target → the reply's
first JSON object, plus the one result shape for a reply that breaks the contract.

Transient failures are retried by the judge's ``RetryingProvider`` (the one retry layer);
a judge that still fails raises, and ``run_evaluator`` makes that the evaluator's error.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaluators.base import EvalContext, Evaluator, EvaluatorResult
from evaluators.jsonutil import first_json_object
from providers.base import Request, Usage


@dataclass
class JudgeReply:
    text: str
    data: dict[str, Any] | None  # the reply's first JSON object
    usage: Usage | None
    provider_request: dict[str, Any]  # what the record keeps: prompts and the judge's name


async def ask_judge(ctx: EvalContext, system: str, prompt: str, *,
                    metadata: dict[str, Any] | None = None,
                    recorded: dict[str, Any] | None = None) -> JudgeReply:
    """Send ``system`` + ``prompt`` to the case's judge, asking for a JSON object.
    ``recorded`` adds keys to the record's ``evaluator_provider_request``."""
    request = Request(eval_id=ctx.eval_id, question=prompt, system_prompt=system,
                      chat=[{"role": "system", "content": system},
                            {"role": "user", "content": prompt}],
                      attempt=ctx.attempt, trial=ctx.trial, purpose="judge",
                      response_format="json", metadata=metadata or {})
    response = await ctx.call_judge(request)
    return JudgeReply(response.text, first_json_object(response.text), response.usage,
                      {**(recorded or {}), "user_prompt": prompt, "system_prompt": system,
                       "target": ctx.judge_name})


def broken_reply(evaluator: Evaluator, reply: JudgeReply, *, reasoning: str, warning: str,
                 misses: list[str] | None = None, **kw: Any) -> EvaluatorResult:
    """Score 0 for a reply that breaks the evaluator's output contract; the raw reply kept."""
    return evaluator.result(0.0, misses=misses or [], reasoning=reasoning,
                            evaluator_provider_request=reply.provider_request,
                            details={"raw_reply": reply.text}, usage=reply.usage,
                            warnings=[warning], **kw)


def judged(evaluator: Evaluator, reply: JudgeReply, score: float, hits: list[str],
           misses: list[str], reasoning: str, **kw: Any) -> EvaluatorResult:
    """The evaluator's result from a valid reply, with the request and usage recorded."""
    return evaluator.result(score, hits, misses, reasoning,
                            evaluator_provider_request=reply.provider_request,
                            usage=reply.usage, **kw)
