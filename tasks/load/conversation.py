"""A test run as a live conversation (AgentV 4.42.4's ``mode: conversation``): the case's
input opens it, then each turn's user input is sent with the conversation so far, the
target's answer is graded by that turn's evaluators, and the turns' scores (with the test's
own evaluators' score on the whole transcript, if it has any) are aggregated into the
case's score (``tasks.engine.conversation`` runs it)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentv.evaluators.base import Evaluator

AGGREGATIONS = ("mean", "min", "max")
ON_TURN_FAILURE = ("continue", "stop")


@dataclass(slots=True)
class Turn:
    """One user turn: its text (as AgentV sends it: a non-text input as compact JSON), the
    answer it expects (``expected_output``, as text) and its evaluators. ``implicit``: no
    assertions but an expected answer — graded by the implicit llm-grader, without
    ``scores``; no evaluators at all: the turn scores 1."""

    text: str
    line: int
    expected: str = ""
    evaluators: list[Evaluator] = field(default_factory=list)
    implicit: bool = False


@dataclass(slots=True)
class Conversation:
    turns: list[Turn]
    aggregation: str = "mean"  # mean / min / max of the turns' (and the test's) scores
    on_turn_failure: str = "continue"  # stop: the turns after one below the threshold skip
    window_size: int | None = None  # the last N exchanges (system messages always) are sent

    def window(self, history: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """What the target and the graders see of ``history`` (AgentV's windowed history)."""
        if not self.window_size:
            return list(history)
        system = [m for m in history if m["role"] == "system"]
        rest = [m for m in history if m["role"] != "system"]
        return [*system, *rest[-self.window_size * 2:]]


def aggregate(scores: list[float], how: str) -> float:
    """AgentV's ``aggregateConversationScores`` (1 with no scores)."""
    if not scores:
        return 1.0
    if how == "min":
        return min(scores)
    if how == "max":
        return max(scores)
    return sum(scores) / len(scores)


def every_evaluator(case: Any) -> list[Evaluator]:
    """The case's evaluators and its turns' (what a run may start: code graders, judges)."""
    turns = case.conversation.turns if getattr(case, "conversation", None) else []
    return [*case.evaluators, *(e for turn in turns for e in turn.evaluators)]
