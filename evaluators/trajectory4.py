"""AgentV 4.x's ``tool-trajectory``: the agent's tool calls against `expected` / `minimums`.

Modes (AgentV 4.42.4, ``graders/tool-trajectory.ts``): ``any_order`` (each tool of `minimums`
called at least that often: score = share of tools that were), ``in_order`` (the expected calls
appear in this order, others between them allowed), ``exact`` (exactly these calls in this
order), ``superset`` (every expected call appears somewhere, extras allowed), ``subset`` (every
actual call is one of the expected). Arguments are compared by `args_match` (per item or for the
evaluator): ``exact`` (default), ``superset`` (the call has at least the expected keys),
``subset``, ``ignore``, or a list of (dotted) fields; ``args: any`` matches anything. An item's
`max_duration_ms` adds a latency check (counted even when its step is not matched; skipped when the
matched call's duration is unknown), as AgentV 4.42.4 scores it.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult
from agentv.evaluators.session import event_duration, session_from_context
from agentv.providers.base_settings import NumbersNotText

ArgsMatch = Literal["exact", "superset", "subset", "ignore"] | list[str]


class Expected(NumbersNotText):
    model_config = ConfigDict(extra="allow")
    tool: str
    args: dict[str, Any] | Literal["any"] | None = None
    max_duration_ms: float | None = Field(default=None, ge=0)
    args_match: ArgsMatch | None = None


def _get(value: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def args_match(expected: Any, actual: Any, mode: ArgsMatch) -> bool:
    if expected is None or expected == "any" or mode == "ignore":
        return True
    if not isinstance(actual, dict):
        return False
    if isinstance(mode, list):
        return all(_get(actual, f) == _get(expected, f) for f in mode
                   if _get(expected, f) is not None)
    if mode == "superset":
        return all(k in actual and actual[k] == v for k, v in expected.items())
    if mode == "subset":
        return all(k in expected and expected[k] == v for k, v in actual.items())
    return bool(expected == actual)


class Call:
    def __init__(self, name: str, args: Any, duration_ms: float | None) -> None:
        self.name, self.args, self.duration_ms = name, args, duration_ms


class Checks:
    """Assertions plus AgentV's score: sequence hits and measured latency checks."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.hits = 0
        self.latency_hits = 0
        self.latency_skipped = 0  # matched calls whose duration is unknown

    def add(self, text: str, passed: bool, counts: bool = True) -> None:
        self.items.append({"text": text, "passed": passed})
        self.hits += int(passed and counts)

    def latency(self, item: Expected, call: Call) -> None:
        if item.max_duration_ms is None:
            return
        if call.duration_ms is None:
            self.latency_skipped += 1
            return
        took, limit = call.duration_ms, item.max_duration_ms
        if took <= limit:
            self.latency_hits += 1
            self.items.append({"text": f"{item.tool} completed in {took:g}ms (max: {limit:g}ms)",
                               "passed": True})
        else:
            self.items.append({"text": f"{item.tool} took {took:g}ms (max: {limit:g}ms)",
                               "passed": False})


class ToolTrajectory4(Evaluator):
    """The agent's tool calls match `expected` (`mode`: any_order with `minimums`, in_order,
    exact, superset, subset; `args_match`)."""
    kind = "tool-trajectory"
    mode: Literal["any_order", "in_order", "exact", "superset", "subset"]
    minimums: dict[str, int] | None = None
    expected: list[Expected] | None = None
    args_match: ArgsMatch | None = None

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        view = session_from_context(ctx)
        calls = [Call(e.name or "", e.arguments, event_duration(e)) for e in view.tool_calls()]
        if not calls and not view.has_trace and not ctx.output_messages:
            return self.done(0.0, [{"text": "No trace available for evaluation",
                                    "passed": False}])
        if self.mode == "any_order":
            return self.any_order(calls)
        return getattr(self, self.mode)(calls, self.expected or [])

    def mode_of(self, item: Expected) -> ArgsMatch:
        return item.args_match or self.args_match or "exact"

    def done(self, score: float, items: list[dict[str, Any]]) -> EvaluatorResult:
        return self.result(score, hits=[a["text"] for a in items if a["passed"]],
                           misses=[a["text"] for a in items if not a["passed"]],
                           assertions=items)

    def any_order(self, calls: list[Call]) -> EvaluatorResult:
        minimums = self.minimums or {}
        if not minimums:
            return self.done(1.0, [{"text": "No tool requirements specified", "passed": True}])
        counts: dict[str, int] = {}
        for call in calls:
            counts[call.name] = counts.get(call.name, 0) + 1
        items = [{"text": f"{tool}: called {counts.get(tool, 0)} times (required >={need})",
                  "passed": counts.get(tool, 0) >= need} for tool, need in minimums.items()]
        return self.done(sum(1 for a in items if a["passed"]) / len(items), items)

    def scored(self, checks: Checks, expected: list[Expected]) -> EvaluatorResult:
        """AgentV's: every ``max_duration_ms`` counts (a step not matched misses it too) but
        those of matched calls with no duration."""
        latency = sum(1 for item in expected if item.max_duration_ms is not None)
        total = len(expected) + latency - checks.latency_skipped
        score = (checks.hits + checks.latency_hits) / total if total else 1.0
        return self.done(score, checks.items)

    def in_order(self, calls: list[Call], expected: list[Expected]) -> EvaluatorResult:
        if not expected:
            return self.done(1.0, [{"text": "No tool sequence specified", "passed": True}])
        checks, at = Checks(), 0
        for i, item in enumerate(expected):
            while at < len(calls) and calls[at].name != item.tool:
                at += 1
            if at >= len(calls):
                checks.add(f"Expected {item.tool} at position {i}, not found in remaining trace",
                           False)
                continue
            call = calls[at]
            if args_match(item.args, call.args, self.mode_of(item)):
                checks.add(f"Found {item.tool} at position {at}", True)
                checks.latency(item, call)
            else:
                checks.add(f"Expected {item.tool} at position {i}: tool found at {at} but args "
                           "mismatch", False)
            at += 1
        return self.scored(checks, expected)

    def exact(self, calls: list[Call], expected: list[Expected]) -> EvaluatorResult:
        if not expected:
            return self.done(1.0, [{"text": "No tool sequence specified", "passed": True}])
        checks = Checks()
        if len(calls) != len(expected):
            checks.add(f"Expected {len(expected)} tool calls, got {len(calls)}", False)
        for i, (item, call) in enumerate(zip(expected, calls)):
            if call.name != item.tool:
                checks.add(f"Position {i}: expected {item.tool}, got {call.name}", False)
            elif args_match(item.args, call.args, self.mode_of(item)):
                checks.add(f"Position {i}: {item.tool}", True)
                checks.latency(item, call)
            else:
                checks.add(f"Position {i}: {item.tool} args mismatch", False)
        for i in range(len(calls), len(expected)):
            checks.add(f"Position {i}: expected {expected[i].tool}, got nothing", False)
        return self.scored(checks, expected)

    def superset(self, calls: list[Call], expected: list[Expected]) -> EvaluatorResult:
        if not expected:
            return self.done(1.0, [{"text": "No expected tools specified", "passed": True}])
        checks, used = Checks(), set()
        for item in expected:
            found = next((j for j, c in enumerate(calls) if j not in used and c.name == item.tool
                          and args_match(item.args, c.args, self.mode_of(item))), None)
            if found is None:
                checks.add(f"Expected {item.tool} not found in actual trajectory", False)
            else:
                used.add(found)
                checks.add(f"Found {item.tool} at position {found}", True)
        return self.done(checks.hits / len(expected), checks.items)

    def subset(self, calls: list[Call], expected: list[Expected]) -> EvaluatorResult:
        if not calls:
            text = ("No tool calls and no expected tools" if not expected
                    else "No actual tool calls (trivially a subset)")
            return self.done(1.0, [{"text": text, "passed": True}])
        if not expected:
            return self.done(0.0, [{"text": f"{len(calls)} unexpected tool call(s) with empty "
                                    "allowed list", "passed": False}])
        checks = Checks()
        for i, call in enumerate(calls):
            ok = any(call.name == e.tool and args_match(e.args, call.args, self.mode_of(e))
                     for e in expected)
            checks.add(f"Position {i}: {call.name} is {'' if ok else 'not '}in allowed set", ok)
        return self.done(checks.hits / len(calls), checks.items)
