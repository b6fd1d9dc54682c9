"""Trace/session checks in YAML (seed 002): ``tool_called``, ``tool_not_called``,
``tool_call_count``, ``all_tools_succeeded``, ``token_usage_under``, ``trace_contains``.

Each applies the typed session check of ``evaluators.session_checks`` to the case's
``SessionView`` (trace events, else ``output_messages`` tool calls; usage).
"""
from __future__ import annotations

from abc import abstractmethod
from typing import Any

from pydantic import Field, model_validator

from agentv.evaluators import session_checks as sc
from agentv.evaluators.base import EvalContext
from agentv.evaluators.score import Score
from agentv.evaluators.scored import ScoreEvaluator
from agentv.evaluators.session import session_from_context


class _SessionCheck(ScoreEvaluator):
    @abstractmethod
    def check(self) -> sc.SessionCheck:
        """The session check this evaluator applies."""

    async def score(self, ctx: EvalContext) -> Score:
        return self.check()(ctx.candidate_answer, None, session_from_context(ctx))


class ToolCalled(_SessionCheck):
    """The trace has a call of `tool`."""
    kind = "tool_called"
    tool: str = ""

    @model_validator(mode="before")
    @classmethod
    def _tool_name(cls, data: Any) -> Any:
        return _split_tool_name(data)

    def check(self) -> sc.SessionCheck:
        return sc.tool_called(self.tool)


class ToolNotCalled(ToolCalled):
    """The trace has no call of `tool`."""
    kind = "tool_not_called"

    def check(self) -> sc.SessionCheck:
        return sc.tool_not_called(self.tool)


class ToolCallCount(ToolCalled):
    """The number of calls of `tool` is between `min` and `max`."""
    kind = "tool_call_count"
    min: int = Field(default=0, ge=0)
    max: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _bounds(self) -> "ToolCallCount":
        if self.max is not None and self.max < self.min:
            raise ValueError(f"max ({self.max}) is below min ({self.min})")
        return self

    def check(self) -> sc.SessionCheck:
        return sc.tool_call_count(self.tool, min_count=self.min, max_count=self.max)


class AllToolsSucceeded(_SessionCheck):
    """Every tool call in the trace succeeded."""
    kind = "all_tools_succeeded"

    def check(self) -> sc.SessionCheck:
        return sc.all_tools_succeeded()


class TokenUsageUnder(_SessionCheck):
    """The case used fewer than `max_tokens` tokens."""
    kind = "token_usage_under"
    max_tokens: int = Field(ge=0)

    def check(self) -> sc.SessionCheck:
        return sc.token_usage_under(self.max_tokens)


class TraceContains(_SessionCheck):
    """At least `min_count` trace events of `event_type` match `predicate` `{field: value…}`."""
    kind = "trace_contains"
    event_type: str | None = None
    predicate: dict[str, Any] | None = None  # fields the event must contain (subset match)
    min_count: int = Field(default=1, ge=0)

    @model_validator(mode="after")
    def _something_to_match(self) -> "TraceContains":
        if self.event_type is None and not self.predicate:
            raise ValueError("trace_contains needs 'event_type' and/or 'predicate'")
        return self

    def check(self) -> sc.SessionCheck:
        return sc.trace_contains(self.event_type, self.predicate, min_count=self.min_count)


def _split_tool_name(data: Any) -> Any:
    """The tool is given as ``tool:`` (or ``tool_name:``); ``name:`` stays the evaluator's
    name unless no ``tool`` is given, in which case AgentV-style ``name`` is the tool."""
    if not isinstance(data, dict):
        return data
    data = dict(data)
    tool = data.pop("tool", None) or data.pop("tool_name", None) or data.get("name")
    if not tool:
        raise ValueError("needs the tool's name ('tool: <name>')")
    data["tool"] = str(tool)
    return data
