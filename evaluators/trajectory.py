"""``tool_trajectory`` (v2) / ``tool-trajectory`` (AgentV 4.x): the agent's tool calls against
`expected` calls and `minimums`, one class for both generations, scored as AgentV 4.42.4 scores
them (``graders/tool-trajectory.ts``).

Modes: ``any_order`` (each tool of `minimums` called at least that often: score = share of tools
that were), ``in_order`` (the expected calls appear in this order, others between them allowed),
``exact`` (these calls in this order), ``superset`` (every expected call appears somewhere, extras
allowed), ``subset`` (every actual call is one of the expected). Arguments are compared by
`args_match` (per item or for the evaluator): ``exact`` (default), ``superset`` (the call has at
least the expected keys), ``subset``, ``ignore``, or a list of (dotted) fields; ``args: any``
matches anything. An item's `max_duration_ms` adds a latency check (counted even when its step is
not matched; skipped when the matched call's duration is unknown).

The generation (``Generation``, chosen once by the suite's loader: ``base.agentv4_rules``) is
the record and how much a file must say, not the scoring: a v2 record carries reasoning and
details and writes ``≥``, and v2 refuses an empty `expected` list or `minimums`, and `expected`
in any_order (which reads only `minimums`); 4.x takes what 4.42.4 takes.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ConfigDict, Field, PrivateAttr, ValidationInfo, model_validator

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult, agentv4_rules
from agentv.evaluators.session import event_duration, session_from_context
from agentv.providers.base_settings import NumbersNotText

ArgsMatch = Literal["exact", "superset", "subset", "ignore"] | list[str]
Mode = Literal["any_order", "in_order", "exact", "superset", "subset"]


@dataclass(frozen=True)
class Generation:
    """What differs between AgentV generations for this evaluator."""
    at_least: str  # the sign in "called n times (required ≥m)"
    describes: bool  # the record carries reasoning and details (v2; 4.x's has assertions only)
    strict: bool  # refuses empty `expected`/`minimums` and `expected` in any_order (v2)


SUPERSET = ("mode 'any_order' reads only 'minimums'; for expected calls in any order use "
            "mode 'superset'")
V2_RULES = Generation(at_least="≥", describes=True, strict=True)
AGENTV4_RULES = Generation(at_least=">=", describes=False, strict=False)


class ExpectedCall(NumbersNotText):
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


def _decoded(actual: Any) -> Any:
    """A call's arguments reported as JSON text are read as the object they spell."""
    if isinstance(actual, str):
        try:
            return json.loads(actual)
        except ValueError:
            return actual
    return actual


def args_match(expected: Any, actual: Any, mode: ArgsMatch) -> bool:
    if expected is None or expected == "any" or mode == "ignore":
        return True
    actual = _decoded(actual)
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
    """AgentV's assertions in order, plus its score's parts: sequence hits and measured
    latency checks."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.warnings: list[str] = []
        self.hits = 0
        self.latency_hits = 0
        self.latency_skipped = 0  # matched calls whose duration is unknown

    def add(self, text: str, passed: bool) -> None:
        self.items.append({"text": text, "passed": passed})
        self.hits += int(passed)

    def only(self, text: str, score: float) -> float:
        self.add(text, score > 0)
        return score

    def latency(self, item: ExpectedCall, call: Call) -> None:
        if item.max_duration_ms is None:
            return
        if call.duration_ms is None:
            self.latency_skipped += 1
            self.warnings.append(f"No duration data for {item.tool}; latency assertion skipped")
            return
        took, limit = call.duration_ms, item.max_duration_ms
        passed = took <= limit
        self.latency_hits += int(passed)
        self.items.append({"text": f"{item.tool} completed in {took:g}ms (max: {limit:g}ms)"
                           if passed else f"{item.tool} took {took:g}ms (max: {limit:g}ms)",
                           "passed": passed})

    def sequence_score(self, expected: list[ExpectedCall]) -> float:
        """Every ``max_duration_ms`` counts (a step not matched misses it too) but those of
        matched calls with no duration."""
        latency = sum(1 for item in expected if item.max_duration_ms is not None)
        total = len(expected) + latency - self.latency_skipped
        return (self.hits + self.latency_hits) / total if total else 1.0


class ToolTrajectory(Evaluator):
    """The agent's tool calls match `expected` calls and `minimums` (`mode`: any_order, in_order,
    exact, superset, subset; `args_match`), scored as AgentV 4.42.4 scores them."""
    kind = "tool_trajectory"
    mode: Mode
    minimums: dict[str, int] | None = None
    expected: list[ExpectedCall] | None = None
    args_match: ArgsMatch | None = None
    _rules: Generation = PrivateAttr(default=V2_RULES)

    @model_validator(mode="after")
    def _needs_expectations(self, info: ValidationInfo) -> "ToolTrajectory":
        self._rules = AGENTV4_RULES if agentv4_rules(info) else V2_RULES
        problem = self._missing()
        if problem:
            raise ValueError(problem)
        return self

    def _missing(self) -> str | None:
        """What AgentV 4.42.4 would drop (4.x) or an empty list (v2): an error."""
        strict = self._rules.strict
        if any(n < 0 for n in (self.minimums or {}).values()):
            return "minimums must be whole numbers >= 0"
        if self.mode != "any_order":
            if strict and not self.expected:
                return f"mode '{self.mode}' needs a non-empty 'expected' list"
            return f"mode '{self.mode}' needs an 'expected' list" if self.expected is None \
                else None
        if self.minimums is None or (strict and not self.minimums):
            return "mode 'any_order' needs 'minimums'" + (f" ({SUPERSET})" if self.expected
                                                          else "")
        return SUPERSET if strict and self.expected else None

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        view = session_from_context(ctx)
        calls = [Call(e.name or "", e.arguments, event_duration(e)) for e in view.tool_calls()]
        checks = Checks()
        if not calls and not view.has_trace and not ctx.output_messages:
            score = checks.only("No trace available for evaluation", 0.0)
            return self._done(score, checks, calls, "The target reported no trace and no "
                                                    "tool calls.")
        score = getattr(self, f"_{self.mode}")(calls, checks, self.expected or [])
        return self._done(score, checks, calls)

    def _done(self, score: float, checks: Checks, calls: list[Call],
              reasoning: str = "") -> EvaluatorResult:
        items = checks.items
        described: dict[str, Any] = {}
        if self._rules.describes:
            passed = sum(1 for a in items if a["passed"])
            described = {"reasoning": reasoning or f"{passed}/{len(items)} trajectory checks "
                         f"passed ({self.mode}, {len(calls)} tool call(s))",
                         "details": {"mode": self.mode, "tool_calls": [c.name for c in calls]}}
        return self.result(score, hits=[a["text"] for a in items if a["passed"]],
                           misses=[a["text"] for a in items if not a["passed"]],
                           assertions=items, warnings=checks.warnings, **described)

    def _mode_of(self, item: ExpectedCall) -> ArgsMatch:
        return item.args_match or self.args_match or "exact"

    def _step(self, checks: Checks, item: ExpectedCall, call: Call, hit: str, miss: str) -> None:
        """A call in the expected step's place: its arguments, then its latency."""
        ok = args_match(item.args, call.args, self._mode_of(item))
        checks.add(hit if ok else miss, ok)
        if ok:
            checks.latency(item, call)

    def _any_order(self, calls: list[Call], checks: Checks, _: list[ExpectedCall]) -> float:
        minimums = self.minimums or {}
        if not minimums:
            return checks.only("No tool requirements specified", 1.0)
        counts = Counter(call.name for call in calls)
        for tool, need in minimums.items():
            checks.add(f"{tool}: called {counts[tool]} times (required "
                       f"{self._rules.at_least}{need})", counts[tool] >= need)
        return checks.hits / len(minimums)

    def _in_order(self, calls: list[Call], checks: Checks, expected: list[ExpectedCall]) -> float:
        if not expected:
            return checks.only("No tool sequence specified", 1.0)
        at = 0
        for i, item in enumerate(expected):
            while at < len(calls) and calls[at].name != item.tool:
                at += 1
            if at >= len(calls):
                checks.add(f"Expected {item.tool} at position {i}, not found in remaining trace",
                           False)
                continue
            self._step(checks, item, calls[at], f"Found {item.tool} at position {at}",
                       f"Expected {item.tool} at position {i}: tool found at {at} but args "
                       "mismatch")
            at += 1
        return checks.sequence_score(expected)

    def _exact(self, calls: list[Call], checks: Checks, expected: list[ExpectedCall]) -> float:
        """A different number of calls is a failed assertion, not a score's part (4.42.4)."""
        if not expected:
            return checks.only("No tool sequence specified", 1.0)
        if len(calls) != len(expected):
            checks.add(f"Expected {len(expected)} tool calls, got {len(calls)}", False)
        for i, (item, call) in enumerate(zip(expected, calls)):
            if call.name != item.tool:
                checks.add(f"Position {i}: expected {item.tool}, got {call.name}", False)
            else:
                self._step(checks, item, call, f"Position {i}: {item.tool}",
                           f"Position {i}: {item.tool} args mismatch")
        for i in range(len(calls), len(expected)):
            checks.add(f"Position {i}: expected {expected[i].tool}, got nothing", False)
        return checks.sequence_score(expected)

    def _superset(self, calls: list[Call], checks: Checks, expected: list[ExpectedCall]) -> float:
        if not expected:
            return checks.only("No expected tools specified", 1.0)
        used: set[int] = set()
        for item in expected:
            found = next((j for j, c in enumerate(calls) if j not in used and c.name == item.tool
                          and args_match(item.args, c.args, self._mode_of(item))), None)
            if found is None:
                checks.add(f"Expected {item.tool} not found in actual trajectory", False)
            else:
                used.add(found)
                checks.add(f"Found {item.tool} at position {found}", True)
        return checks.hits / len(expected)

    def _subset(self, calls: list[Call], checks: Checks, expected: list[ExpectedCall]) -> float:
        if not calls:
            return checks.only("No tool calls and no expected tools" if not expected
                               else "No actual tool calls (trivially a subset)", 1.0)
        if not expected:
            return checks.only(f"{len(calls)} unexpected tool call(s) with empty allowed list",
                               0.0)
        for i, call in enumerate(calls):
            ok = any(call.name == e.tool and args_match(e.args, call.args, self._mode_of(e))
                     for e in expected)
            checks.add(f"Position {i}: {call.name} is {'' if ok else 'not '}in allowed set", ok)
        return checks.hits / len(calls)
