"""The plan's unit of work as loaded: ``EvalCase`` (one case or test) and ``EvalSuite`` (one
eval file) — the same for agentv-eval-v2 files (``tasks.load.files``) and AgentV 4.x files
(``tasks.load.agentv4``), which differ only in ``format``."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

from agentv.evaluators.base import Evaluator
from agentv.providers.agents.workspace_spec import WorkspaceSpec
from agentv.tasks.load.boundary import Boundary
from agentv.tasks.load.conversation import Conversation
from agentv.tasks.load.gates import Gates
from agentv.tasks.load.jsonl import EVAL_SCHEMA
from agentv.tasks.load.messages import Message


@lru_cache(maxsize=256)
def _folder(file: str) -> str:
    """The folder of an eval file (asked for each case it holds)."""
    return str(Path(file).parent)


@dataclass(slots=True)
class EvalCase:
    id: str
    file: str
    line: int
    dataset: str
    expected_outcome: str = ""
    input_messages: list[Message] = field(default_factory=list)
    expected_messages: list[Message] = field(default_factory=list)
    conversation_id: str | None = None
    target: str | None = None  # case-level execution.target
    evaluators: list[Evaluator] = field(default_factory=list)
    rubrics: list[Any] = field(default_factory=list)
    trials: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    workspace: WorkspaceSpec | None = None  # the agent's workspace (the case's or the suite's)
    format: str = EVAL_SCHEMA  # "agentv-4": an AgentV 4.x test (tasks.load.agentv4), its record
    threshold: float | None = None  # AgentV 4.x: the score its execution_status needs (0.8)
    category: str = ""  # AgentV 4.x: the record's category
    conversation: Conversation | None = None  # AgentV 4.x mode: conversation (its turns)

    @property
    def base_dir(self) -> str:
        return _folder(self.file)

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass
class EvalSuite:
    path: str
    description: str = ""
    dataset: str = ""
    target: str | None = None
    trials: int | None = None
    cases: list[EvalCase] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    has_schema: bool = True
    gates: Gates = field(default_factory=Gates)  # execution: fail_under, min_pass_rate, …
    workspace: WorkspaceSpec | None = None  # suite-level ``workspace:`` (a case's replaces it)
    format: str = EVAL_SCHEMA  # or "agentv-4"
    threshold: float | None = None  # AgentV 4.x execution.threshold (the run's --threshold)
    tags: tuple[str, ...] = ()  # the file's tags (``--tag`` / ``--exclude-tag`` select by them)
    workers: int | None = None  # AgentV 4.x execution.workers: the file's concurrent cases
    boundary: Boundary | None = None  # where its files may come from


def asks_judge(evaluators: Sequence[Evaluator]) -> bool:
    """The case's own evaluators (not the implicit default ``llm_judge`` of a v2 file, which
    AgentV's examples leave on agent targets) include an LLM evaluator."""
    from agentv.evaluators.base import needs_judge
    return not getattr(evaluators, "auto", False) and any(needs_judge(e) for e in evaluators)


def file_tags(value: Any, where: str) -> tuple[str, ...]:
    """An eval file's tags (v2: ``metadata.tags``, AgentV 4.x: ``tags``): texts."""
    from agentv.providers.errors import ConfigError
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(t, str) for t in items):
        raise ConfigError(f"must be a list of texts, got {value!r}", where, "tags")
    return tuple(items)


def check_expected(evaluators: Sequence[Evaluator], expected: Any, where: str) -> None:
    """A check whose ``value`` defaults to the case's expected answer (``contains``,
    ``exact_match``, ``json_subset`` ...) in a case that has none compares with nothing:
    an error naming it, not a score of 0 at run time."""
    from agentv.providers.errors import ConfigError
    if expected not in (None, "", []):
        return
    for e in evaluators:  # the checks with ``expected(ctx, value)``: ScoreEvaluator, TextCheck
        if callable(getattr(e, "expected", None)) and "value" in type(e).model_fields \
                and getattr(e, "value", None) is None:
            raise ConfigError(f"the {e.type} evaluator '{e.name or e.type}' has no 'value' and "
                              "the case has no expected_messages to compare with", where,
                              "value")
