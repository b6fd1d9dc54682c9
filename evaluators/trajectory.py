"""``tool_trajectory``: did the agent call the expected tools (AgentV semantics)?

Modes: ``any_order`` with ``minimums: {tool: n}`` (each tool called at least n times;
or ``expected`` items matched anywhere), ``in_order`` (``expected`` appear in sequence,
other calls may sit between) and ``exact`` (the calls are exactly ``expected``).
Expected items are ``{tool, args?, max_duration_ms?}``: ``args`` (a mapping, or ``any``)
must match the given keys; ``max_duration_ms`` adds a latency check on the matched call
(skipped with a warning when the call has no duration). Score = hits / aspects.
"""
from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import ConfigDict, Field, model_validator

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult
from agentv.evaluators.session import event_duration, session_from_context
from agentv.providers.base_settings import NumbersNotText
from agentv.providers.trace import TraceEvent


class ExpectedCall(NumbersNotText):
    model_config = ConfigDict(extra="allow")
    tool: str
    args: dict[str, Any] | Literal["any"] | None = None
    max_duration_ms: float | None = Field(default=None, ge=0)

    def args_match(self, call: TraceEvent) -> bool:
        if self.args is None or self.args == "any":
            return True
        actual = call.arguments
        if isinstance(actual, str):
            try:
                actual = json.loads(actual)
            except ValueError:
                return False
        return isinstance(actual, dict) and all(
            key in actual and actual[key] == value for key, value in self.args.items())


class _Tally:
    def __init__(self) -> None:
        self.hits: list[str] = []
        self.misses: list[str] = []
        self.warnings: list[str] = []
        self.aspects = 0

    def check(self, ok: bool, hit: str, miss: str) -> None:
        self.aspects += 1
        (self.hits if ok else self.misses).append(hit if ok else miss)

    def latency(self, item: ExpectedCall, call: TraceEvent) -> None:
        if item.max_duration_ms is None:
            return
        took = event_duration(call)
        if took is None:
            self.warnings.append(f"{item.tool}: no duration reported; latency check skipped")
            return
        self.check(took <= item.max_duration_ms,
                   f"{item.tool} completed in {took:g}ms (max: {item.max_duration_ms:g}ms)",
                   f"{item.tool} took {took:g}ms (max: {item.max_duration_ms:g}ms)")


class ToolTrajectory(Evaluator):
    """The trace's tool calls against `expected` calls and `minimums` in `mode` any_order /
    in_order / exact: hits / aspects."""
    kind = "tool_trajectory"
    mode: Literal["any_order", "in_order", "exact"]
    minimums: dict[str, int] | None = None
    expected: list[ExpectedCall] | None = None

    @model_validator(mode="after")
    def _needs_expectations(self) -> "ToolTrajectory":
        if self.mode != "any_order" and not self.expected:
            raise ValueError(f"mode '{self.mode}' needs a non-empty 'expected' list")
        if self.mode == "any_order" and not (self.minimums or self.expected):
            raise ValueError("mode 'any_order' needs 'minimums' (or 'expected')")
        if any(n < 0 for n in (self.minimums or {}).values()):
            raise ValueError("minimums must be whole numbers >= 0")
        return self

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        session = session_from_context(ctx)
        calls = list(session.tool_calls())
        if not session.has_trace:
            return self.result(0.0, misses=["No trace available for evaluation"],
                               reasoning="The target reported no trace and no tool calls.")
        tally = _Tally()
        if self.mode == "any_order":
            self._any_order(calls, tally)
        elif self.mode == "in_order":
            self._in_order(calls, tally)
        else:
            self._exact(calls, tally)
        score = len(tally.hits) / tally.aspects if tally.aspects else 1.0
        return self.result(score, tally.hits, tally.misses,
                           f"{len(tally.hits)}/{tally.aspects} trajectory checks passed "
                           f"({self.mode}, {len(calls)} tool call(s))",
                           warnings=tally.warnings,
                           details={"mode": self.mode, "tool_calls": [c.name for c in calls]})

    def _any_order(self, calls: list[TraceEvent], tally: _Tally) -> None:
        for tool, required in (self.minimums or {}).items():
            count = sum(1 for c in calls if c.name == tool)
            line = f"{tool}: called {count} times (required ≥{required})"
            tally.check(count >= required, line, line)
        free = list(range(len(calls)))
        for item in self.expected or []:
            index = next((i for i in free if calls[i].name == item.tool
                          and item.args_match(calls[i])), None)
            tally.check(index is not None, f"Found {item.tool} at position {index}",
                        f"Expected {item.tool}{_args_note(item)}, not found")
            if index is not None:
                free.remove(index)
                tally.latency(item, calls[index])

    def _in_order(self, calls: list[TraceEvent], tally: _Tally) -> None:
        cursor = 0
        for position, item in enumerate(self.expected or []):
            rest = range(cursor, len(calls))
            index = next((i for i in rest if calls[i].name == item.tool
                          and item.args_match(calls[i])), None)
            if index is None:
                named = any(calls[i].name == item.tool for i in rest)
                why = "args mismatch" if named else "not found in remaining trace"
                tally.check(False, "", f"Expected {item.tool} at position {position}: {why}")
                continue
            tally.check(True, f"Found {item.tool} at position {index}", "")
            tally.latency(item, calls[index])
            cursor = index + 1

    def _exact(self, calls: list[TraceEvent], tally: _Tally) -> None:
        expected = self.expected or []
        for i, item in enumerate(expected):
            actual = calls[i] if i < len(calls) else None
            if actual is None:
                tally.check(False, "", f"Position {i}: expected {item.tool}, got nothing")
            elif actual.name != item.tool:
                tally.check(False, "", f"Position {i}: expected {item.tool}, got {actual.name}")
            else:
                ok = item.args_match(actual)
                tally.check(ok, f"Position {i}: {item.tool}",
                            f"Position {i}: {item.tool} args mismatch")
                if ok:
                    tally.latency(item, actual)
        if len(calls) > len(expected):
            extra = ", ".join(str(c.name) for c in calls[len(expected):])
            tally.check(False, "", f"Expected {len(expected)} tool calls, got {len(calls)} "
                                   f"(extra: {extra})")


def _args_note(item: ExpectedCall) -> str:
    return f" with args {json.dumps(item.args)}" if isinstance(item.args, dict) else ""
