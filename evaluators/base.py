"""The evaluator extension point.

An evaluator is a small pydantic model whose fields are its YAML config, with one
``async evaluate(ctx) -> EvaluatorResult``. Exceptions raised inside ``evaluate`` are
turned into that evaluator's error result by ``run_evaluator`` (score 0, error
recorded); they never fail the case or the run. No Prefect imports here.
"""
from __future__ import annotations

import math
from abc import abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from agentv.providers.base import Provider, Usage
from agentv.providers.base_settings import NumbersNotText
from agentv.providers.secrets import cut
from agentv.providers.trace import TraceEvent

PASS_THRESHOLD = 0.8
BORDERLINE_THRESHOLD = 0.6


def verdict_for(score: float) -> str:
    if score >= PASS_THRESHOLD:
        return "pass"
    if score >= BORDERLINE_THRESHOLD:
        return "borderline"
    return "fail"


AGENTV4 = "4.x"  # the validation context's "generation" for an AgentV 4.x suite's evaluators


def agentv4_rules(info: Any) -> bool:
    """An evaluator being built for an AgentV 4.x suite (``context={"generation": "4.x"}``):
    the generation's rules apply (the strategy is chosen once, by the suite's loader)."""
    context = getattr(info, "context", None)
    return isinstance(context, dict) and context.get("generation") == AGENTV4


def clamp01(value: float) -> float:
    """Clamp to [0, 1]; a non-finite value (NaN, ±Infinity) stays as it is, so
    ``EvaluatorResult`` can turn it into score 0 with an error instead of 1.0."""
    value = float(value)
    return value if not math.isfinite(value) else max(0.0, min(1.0, value))


@dataclass
class EvalContext:
    """Everything an evaluator may look at for one case attempt (read-only by convention)."""

    eval_id: str
    question: str
    candidate_answer: str
    expected_outcome: str = ""
    reference_answer: str = ""
    input_messages: list[dict[str, Any]] = field(default_factory=list)
    expected_messages: list[dict[str, Any]] = field(default_factory=list)
    output_messages: list[dict[str, Any]] | None = None
    guideline_paths: list[str] = field(default_factory=list)
    input_files: list[str] = field(default_factory=list)
    system_message: str = ""
    trace: list[TraceEvent] | None = None
    usage: Usage | None = None
    latency_ms: float | None = None
    rubrics: list[Any] = field(default_factory=list)
    base_dir: str = "."  # directory of the eval file (relative prompt/script paths)
    target: str = ""
    target_provider: str = ""  # the target's provider kind (cli, openai, claude, ...)
    judge: Provider | None = None  # judge target, already wrapped with retries
    judge_name: str | None = None
    attempt: int = 1
    trial: int = 0
    trace_summary: dict[str, Any] | None = None  # AgentV's record trace_summary of the answer
    user_segments: list[dict[str, Any]] = field(default_factory=list)
    case_metadata: dict[str, Any] = field(default_factory=dict)  # the case's own `metadata:`
    file_changes: str | None = None  # agent in a workspace: the diff of what it changed
    workspace_path: str | None = None  # agent in a workspace: the folder, when kept


@dataclass
class EvaluatorResult:
    name: str
    type: str
    score: float
    weight: float = 1.0
    verdict: str = ""
    hits: list[str] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    reasoning: str = ""
    evaluator_provider_request: dict[str, Any] | None = None
    details: dict[str, Any] | None = None
    usage: Usage | None = None
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    children: list["EvaluatorResult"] | None = None  # members of composite/all_of/any_of
    judge_call: dict[str, Any] | None = None  # judge attempts/asks/waits when not just one
    assertions: list[dict[str, Any]] | None = None  # AgentV 4.x's [{text, passed, evidence?}]
    negated: bool = False  # AgentV 4.x's `negate`: the verdict was decided, then swapped

    def __post_init__(self) -> None:
        if not _finite(self.score):  # the one guard every evaluator's score passes through
            self.error = self.error or f"evaluator returned a non-finite score ({self.score!r})"
            self.misses = [*self.misses, self.error]
            self.score, self.verdict = 0.0, ""
        self.score = clamp01(self.score)
        if not self.verdict:
            self.verdict = verdict_for(self.score)

    def to_record(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name, "type": self.type, "score": round(self.score, 6),
            "weight": self.weight, "verdict": self.verdict, "hits": self.hits,
            "misses": self.misses, "reasoning": self.reasoning,
        }
        if self.evaluator_provider_request is not None:
            out["evaluator_provider_request"] = self.evaluator_provider_request
        if self.details:
            out["details"] = self.details
        if self.usage is not None:
            out["usage"] = self.usage.to_dict()
        if self.error:
            out["error"] = self.error
        if self.warnings:
            out["warnings"] = self.warnings
        if self.judge_call is not None:
            out["judge_call"] = self.judge_call
        if self.children is not None:
            out["evaluator_results"] = [c.to_record() for c in self.children]
        return out


class Evaluator(NumbersNotText):
    """Base class: subclasses set ``kind`` and declare their YAML config as fields."""

    model_config = ConfigDict(extra="allow", arbitrary_types_allowed=True, populate_by_name=True)
    kind: ClassVar[str] = "base"
    uses_judge: ClassVar[bool] = False  # asks the case's judge (an LLM) for its verdict

    name: str | None = None
    type: str | None = None
    weight: float = Field(default=1.0, ge=0)
    base_dir: str = Field(default=".", exclude=True)  # eval file directory, set by the loader

    @property
    def label(self) -> str:
        return self.name or self.type or self.kind

    @abstractmethod
    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        """Score one case; exceptions become this evaluator's error result."""

    def result(self, score: float, hits: list[str] | None = None,
               misses: list[str] | None = None, reasoning: str = "", **kw: Any
               ) -> EvaluatorResult:
        return EvaluatorResult(name=self.label, type=self.type or self.kind, score=score,
                               weight=self.weight, hits=hits or [], misses=misses or [],
                               reasoning=reasoning, **kw)


class EvaluatorFailure(Exception):
    """An evaluator's failure carrying result fields its error result still records (the
    judge's request, usage, raw reply)."""

    def __init__(self, message: str, **fields: Any):
        super().__init__(message)
        self.fields = fields


def error_result(evaluator: Evaluator, err: BaseException) -> EvaluatorResult:
    message = f"{type(err).__name__}: {err}"
    fields = err.fields if isinstance(err, EvaluatorFailure) else {}
    return evaluator.result(0.0, misses=[cut(f"evaluator error: {message}", 300)],
                            reasoning=f"Evaluator failed: {message}", error=message, **fields)


async def run_evaluator(evaluator: Evaluator, ctx: EvalContext) -> EvaluatorResult:
    """Evaluate with isolation: any exception becomes this evaluator's error result."""
    try:
        return await evaluator.evaluate(ctx)
    except Exception as err:  # noqa: BLE001 - isolation is the point
        return error_result(evaluator, err)


def _finite(value: Any) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def needs_judge(model: Any) -> bool:
    """The evaluator, or one inside it (composite members, a gated assertion's inner one,
    an LLM aggregator), asks the case's judge."""
    if getattr(model, "uses_judge", False):
        return True
    if not isinstance(model, BaseModel):
        return False
    inside = [getattr(model, name, None) for name in type(model).model_fields]
    inside.append(getattr(model, "members", None))  # composite / all_of / any_of members
    for value in inside:
        if any(needs_judge(item) for item in (value if isinstance(value, list) else [value])
               if isinstance(item, BaseModel)):
            return True
    return False


def weighted_score(results: list[EvaluatorResult]) -> float:
    """Weighted mean of evaluator scores; weight 0 excludes; no weight at all → 0."""
    total = sum(r.weight for r in results)
    if total <= 0:
        return 0.0
    return sum(r.score * r.weight for r in results) / total
