"""Helpers for evaluator tests: contexts built from real mock-provider responses."""
from __future__ import annotations

import asyncio
from typing import Any

from agentv.evaluators.base import EvalContext, EvaluatorResult, run_evaluator
from agentv.evaluators.registry import build_evaluator
from agentv.providers.base import Request, Target
from agentv.providers.mock import MockProvider


def mock_judge(reply: Any) -> MockProvider:
    """The real mock provider as a judge answering ``reply`` (dict → JSON)."""
    return MockProvider(Target(name="judge", provider="mock", settings={"judge_response": reply}))


def target_response(answer: str = "", trace: list[dict] | None = None,
                    usage: dict | None = None, output_messages: list[dict] | None = None):
    settings: dict[str, Any] = {"response": answer}
    if trace is not None:
        settings["trace"] = trace
    if usage is not None:
        settings["usage"] = usage
    if output_messages is not None:
        settings["output_messages"] = output_messages
    provider = MockProvider(Target(name="agent", provider="mock", settings=settings))
    return asyncio.run(provider.invoke(Request(eval_id="case", question="q")))


def make_ctx(answer: str = "", *, trace: list[dict] | None = None, usage: dict | None = None,
             output_messages: list[dict] | None = None, judge: Any = None,
             latency_ms: float | None = None, **fields: Any) -> EvalContext:
    """An EvalContext from a mock target response (answer, trace, usage) plus ``fields``."""
    response = target_response(answer, trace, usage, output_messages)
    ctx = EvalContext(eval_id=fields.pop("eval_id", "case"), question=fields.pop("question", "q"),
                      candidate_answer=response.text, trace=response.trace,
                      usage=response.usage, output_messages=response.output_messages,
                      latency_ms=latency_ms, **fields)
    if judge is not None:
        ctx.judge = mock_judge(judge) if not hasattr(judge, "invoke") else judge
        ctx.judge_name = "judge"
    return ctx


def run(config: dict, ctx: EvalContext, base_dir: str = ".") -> EvaluatorResult:
    """Build ``config`` through the registry and evaluate it with isolation."""
    evaluator = build_evaluator(config, base_dir=base_dir, where="suite.yaml:1")
    return asyncio.run(run_evaluator(evaluator, ctx))
