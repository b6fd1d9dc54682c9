"""Budget evaluators (AgentV): ``latency {threshold}`` ms, ``cost {budget}`` USD,
``token_usage {max_total, max_input, max_output}`` and ``execution_metrics
{max_tool_calls, max_llm_calls, max_tokens, max_cost_usd, max_duration_ms,
target_exploration_ratio, exploration_tolerance}``.

Numbers come from the case's ``SessionView`` (provider usage and latency first, trace
sums otherwise). A budget whose data the target did not report is a miss, never a pass.
``latency``, ``cost`` and ``token_usage`` are pass/fail; ``execution_metrics`` scores
the fraction of configured limits that hold.
"""
from __future__ import annotations

from typing import Callable

from pydantic import Field, PrivateAttr, ValidationInfo, model_validator

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult, agentv4_rules
from agentv.evaluators.session import SessionView, session_from_context


class _Checks:
    def __init__(self) -> None:
        self.hits: list[str] = []
        self.misses: list[str] = []
        self.actual: dict[str, float] = {}

    def limit(self, key: str, label: str, value: float | None, limit: float,
              fmt: Callable[[float], str] = lambda v: f"{v:g}") -> None:
        if value is None:
            self.misses.append(f"{label} data not available")
            return
        self.actual[key] = value
        ok = value <= limit
        (self.hits if ok else self.misses).append(
            f"{label} {fmt(value)} {'<=' if ok else '>'} {fmt(limit)} max")

    def all_passed(self) -> float:
        return 1.0 if not self.misses else 0.0

    def fraction(self) -> float:
        total = len(self.hits) + len(self.misses)
        return len(self.hits) / total if total else 0.0


def _usd(value: float) -> str:
    return f"${value:.4f}"


def _ms(value: float) -> str:
    return f"{value:g}ms"


class Latency(Evaluator):
    """1 if the answer came within `threshold` ms."""
    kind = "latency"
    threshold: float = Field(ge=0)

    @model_validator(mode="after")
    def _positive(self, info: ValidationInfo) -> "Latency":
        """0 ms is a limit only AgentV 4.x takes (it fails every answer); v2 refuses it."""
        if self.threshold == 0 and not agentv4_rules(info):
            raise ValueError("threshold: must be > 0")
        return self

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        checks = _Checks()
        checks.limit("duration_ms", "Duration", session_from_context(ctx).duration_ms,
                     self.threshold, _ms)
        return self.result(checks.all_passed(), checks.hits, checks.misses,
                           f"threshold {self.threshold:g}ms", details=checks.actual or None)


class Cost(Evaluator):
    """1 if the case cost at most `budget` USD."""
    kind = "cost"
    budget: float = Field(ge=0)

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        checks = _Checks()
        checks.limit("cost_usd", "Cost", session_from_context(ctx).cost_usd, self.budget, _usd)
        return self.result(checks.all_passed(), checks.hits, checks.misses,
                           f"budget {_usd(self.budget)}", details=checks.actual or None)


class TokenUsage(Evaluator):
    """1 if every given token limit holds."""
    kind = "token_usage"
    max_total: int | None = Field(default=None, ge=0)
    max_input: int | None = Field(default=None, ge=0)
    max_output: int | None = Field(default=None, ge=0)
    # AgentV 4.x: the total counts cached tokens (4.42.4's rule)
    _agentv4: bool = PrivateAttr(default=False)

    @model_validator(mode="after")
    def _some_limit(self, info: ValidationInfo) -> "TokenUsage":
        self._agentv4 = agentv4_rules(info)
        if self.max_total is None and self.max_input is None and self.max_output is None:
            raise ValueError("token_usage needs max_total, max_input or max_output")
        return self

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        view, checks = session_from_context(ctx), _Checks()
        for key, label, value, limit in (
                ("input", "Input tokens", view.input_tokens, self.max_input),
                ("output", "Output tokens", view.output_tokens, self.max_output),
                ("total", "Total tokens", self._total(view), self.max_total)):
            if limit is not None:
                checks.limit(key, label, value, limit)
        return self.result(checks.all_passed(), checks.hits, checks.misses,
                           _usage_note(view), details=checks.actual or None)


    def _total(self, view: SessionView) -> int | None:
        total = view.total_tokens
        if not self._agentv4 or total is None or view.usage is None:
            return total
        return total + (view.usage.cached_tokens or 0)


class ExecutionMetrics(Evaluator):
    """The fraction of the given limits held (tool calls, LLM calls, tokens, cost, duration,
    exploration ratio)."""
    kind = "execution_metrics"
    max_tool_calls: int | None = Field(default=None, ge=0)
    max_llm_calls: int | None = Field(default=None, ge=0)
    max_tokens: int | None = Field(default=None, ge=0)
    max_cost_usd: float | None = Field(default=None, ge=0)
    max_duration_ms: float | None = Field(default=None, ge=0)
    target_exploration_ratio: float | None = Field(default=None, ge=0, le=1)
    exploration_tolerance: float = Field(default=0.2, ge=0, le=1)

    @model_validator(mode="after")
    def _some_limit(self) -> "ExecutionMetrics":
        limits = (self.max_tool_calls, self.max_llm_calls, self.max_tokens, self.max_cost_usd,
                  self.max_duration_ms, self.target_exploration_ratio)
        if all(v is None for v in limits):
            raise ValueError("execution_metrics needs at least one limit (max_tool_calls, "
                             "max_llm_calls, max_tokens, max_cost_usd, max_duration_ms, "
                             "target_exploration_ratio)")
        return self

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        view, checks = session_from_context(ctx), _Checks()
        tool_calls, llm_calls = _call_counts(view, ctx.trace_summary)
        if self.max_tool_calls is not None:
            checks.limit("tool_calls", "Tool calls", tool_calls, self.max_tool_calls)
        if self.max_llm_calls is not None:
            checks.limit("llm_calls", "LLM calls", llm_calls, self.max_llm_calls)
        if self.max_tokens is not None:
            checks.limit("tokens", "Total tokens", view.total_tokens, self.max_tokens)
        if self.max_cost_usd is not None:
            checks.limit("cost_usd", "Cost", view.cost_usd, self.max_cost_usd, _usd)
        if self.max_duration_ms is not None:
            checks.limit("duration_ms", "Duration", view.duration_ms, self.max_duration_ms, _ms)
        if self.target_exploration_ratio is not None:
            self._exploration(view, checks, self.target_exploration_ratio)
        actual = ", ".join(f"{k}={v:g}" for k, v in checks.actual.items())
        return self.result(checks.fraction(), checks.hits, checks.misses,
                           f"execution_metrics {actual or 'none available'}",
                           details=checks.actual or None)

    def _exploration(self, view: SessionView, checks: _Checks, target: float) -> None:
        ratio = view.exploration_ratio()
        if ratio is None:
            checks.misses.append("Exploration ratio not available (no tool calls)")
            return
        checks.actual["exploration_ratio"] = ratio
        diff = abs(ratio - target)
        ok = diff <= self.exploration_tolerance
        (checks.hits if ok else checks.misses).append(
            f"Exploration ratio {ratio:.2f} {'within' if ok else 'outside'} "
            f"{self.exploration_tolerance:g} of target {target:g}")


def _call_counts(view: SessionView, summary: dict | None) -> tuple[int | None, int | None]:
    """Tool and LLM call counts: AgentV's, from the case's ``trace_summary`` (a target that
    reported its run without a tool call made none); from the trace when there is no
    summary."""
    if isinstance(summary, dict):
        return summary.get("event_count"), summary.get("llm_call_count")
    if not view.has_trace:
        return None, None
    return len(view.tool_calls()), len(view.llm_calls)


def _usage_note(view: SessionView) -> str:
    parts = [f"{name}={value}" for name, value in (("input", view.input_tokens),
                                                   ("output", view.output_tokens),
                                                   ("total", view.total_tokens))
             if value is not None]
    return "token_usage " + (", ".join(parts) if parts else "not reported")
