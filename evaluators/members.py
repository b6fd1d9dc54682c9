"""Member evaluators of ``composite``, ``all_of`` and ``any_of``: built, run, reported.

Members are built with the registry (so they nest and validate like top-level
evaluators), with errors and warnings pointing at the member's own line when the
YAML loader kept line numbers. Unnamed members get generated names.
"""
from __future__ import annotations

import asyncio
from typing import Any

from pydantic import PrivateAttr, ValidationInfo

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult, run_evaluator


class WithMembers(Evaluator):
    """Base of evaluators made of member evaluators (YAML ``evaluators:``)."""

    evaluators: Any  # the raw list (Any keeps the YAML loader's line numbers)
    _members: list[Evaluator] = PrivateAttr(default_factory=list)

    @property
    def members(self) -> list[Evaluator]:
        return self._members

    def build_own_members(self, info: ValidationInfo) -> None:
        self._members = build_members(self.evaluators, self.base_dir, info, self.kind)


def build_members(configs: Any, base_dir: str, info: ValidationInfo,
                  owner: str) -> list[Evaluator]:
    from agentv.evaluators.registry import build_evaluators  # lazy: the registry imports us

    context = info.context or {}
    where = context.get("where") or ""
    if not isinstance(configs, list) or not configs:
        raise ValueError(f"'{owner}' needs a non-empty 'evaluators' list")
    return build_evaluators(configs, base_dir=base_dir, where=where, warn=context.get("warn"),
                            line_of=_line_of(configs, where), contain=context.get("contain"))


def _line_of(configs: Any, where: str):
    line_of = getattr(configs, "line_of", None)
    if line_of is None or not where:
        return None
    file = where.rsplit(":", 1)[0] if ":" in where else where
    return lambda i: f"{file}:{line_of(i)}"


async def run_members(members: list[Evaluator], ctx: EvalContext) -> list[EvaluatorResult]:
    return list(await asyncio.gather(*(run_evaluator(m, ctx) for m in members)))


def prefixed(results: list[EvaluatorResult], attr: str) -> list[str]:
    """Members' hits or misses as ``[member] text``."""
    return [f"[{r.name}] {item}" for r in results for item in getattr(r, attr)]


def joined_reasoning(results: list[EvaluatorResult]) -> str:
    return "; ".join(f"{r.name}: {r.reasoning}" for r in results if r.reasoning)


def member_summary(result: EvaluatorResult) -> dict[str, Any]:
    """What aggregators see of a member (AgentV's per-member result object)."""
    out = {"name": result.name, "type": result.type, "score": result.score,
           "verdict": result.verdict, "hits": result.hits, "misses": result.misses,
           "reasoning": result.reasoning, "weight": result.weight}
    if result.error:
        out["error"] = result.error
    if result.details:
        out["details"] = result.details
    return out
