"""The provider extension point: Request in, Response out.

A provider is built from a resolved target (``Target``) and does one thing:
``await provider.invoke(request) -> Response``. Transient failures raise
``ProviderError(retryable=True, ...)``; the single retry layer lives in
``providers.llm.retry`` and is applied by the caller, never inside a provider.
This module must not import Prefect or litellm.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

# the error types live in providers.errors; re-exported here for existing imports
from agentv.providers.errors import ConfigError as ConfigError
from agentv.providers.errors import ProviderError as ProviderError
from agentv.providers.errors import ProviderTimeout as ProviderTimeout
from agentv.providers.facts import ProviderFacts
from agentv.providers.trace import TraceEvent


@dataclass
class Usage:
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    cached_tokens: int | None = None  # input tokens served from a prompt cache, if reported

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"input_tokens": self.input_tokens,
                               "output_tokens": self.output_tokens, "cost_usd": self.cost_usd}
        if self.cached_tokens is not None:
            out["cached_tokens"] = self.cached_tokens
        return out


@dataclass
class RubricCheck:
    """One rubric item as the judge is asked about it."""

    id: str
    text: str


@dataclass
class JudgeInputs:
    """What a judge request is about, as data (the evaluator renders the prompt from it; the
    offline mock judge scores from it). ``rubric`` lists the items of a rubric judge;
    ``ranged`` says they are scored 0–10 by score ranges instead of checked; ``criterion``
    is a categorical judge's (it answers a rating label)."""

    candidate_answer: str
    expected_outcome: str = ""
    reference_answer: str = ""
    rubric: list[RubricCheck] | None = None
    ranged: bool = False
    criterion: str | None = None


@dataclass
class Request:
    """What a target is asked (AgentV's prompt content, ``tasks.plan.prompts``). ``chat`` is what
    an LLM provider sends (system message with the guidelines block, prior turns, final user
    turn); agent and command providers send ``question`` (files as ``<file: path="…">``
    references) and render their own preread block from ``guideline_paths`` and
    ``input_files``. ``chat_prompt`` is AgentV's multi-turn chat prompt (None for single-turn
    cases), kept for the record. ``input_messages`` are the case's messages as AgentV's batch
    input carries them; ``eval_file`` the eval file the case came from (a command target runs
    in its directory); ``judge`` what a judge request is about (``purpose == "judge"``)."""

    eval_id: str
    question: str
    chat: list[dict[str, str]] = field(default_factory=list)
    chat_prompt: list[dict[str, str]] | None = None
    system_prompt: str | None = None
    guidelines: str = ""
    guideline_paths: list[str] = field(default_factory=list)
    input_files: list[str] = field(default_factory=list)
    attempt: int = 1
    trial: int = 0
    purpose: Literal["target", "judge"] = "target"
    response_format: str | None = None  # "json" asks LLM providers for a JSON object
    input_messages: list[dict[str, Any]] | None = None
    eval_file: str | None = None
    judge: JudgeInputs | None = None
    workspace: Any = None  # the case's providers.agents.workspace_spec.WorkspaceSpec, if any
    hand_over_workspace: bool = False  # the caller finishes the agent's workspace (Response)


@dataclass
class Response:
    text: str
    output_messages: list[dict[str, Any]] | None = None
    trace: list[TraceEvent] | None = None
    usage: Usage | None = None
    latency_ms: float | None = None
    raw: dict[str, Any] | None = None  # never holds secrets
    cached: bool = False
    wait_ms: float = 0.0  # time the retry layer waited between attempts (set by it)
    rate_limit_remaining: int | None = None  # lowest x-ratelimit-remaining-* header
    file_changes: str | None = None  # agent targets: unified diff of their workspace
    workspace_path: str | None = None  # agent targets: their workspace, when kept (or live)
    workspace: Any = None  # handed over (Request.hand_over_workspace): ``finish(failed,
    # keep_all)`` removes or keeps it once the answer is scored; the kept path, else None


@runtime_checkable
class Provider(Protocol):
    name: str  # the target name
    kind: str  # the provider kind, e.g. "mock", "openai"

    def check(self) -> None:
        """Raise ConfigError naming everything that is missing (credentials, executables)."""

    async def invoke(self, request: Request) -> Response: ...


_LEGACY = ("is_agent", "supports_batch", "max_workers")


class BaseProvider(ABC):
    """Convenience base: keeps the target and exposes typed settings access.

    A provider class declares what it is in ``facts`` (``providers.facts``); ``is_agent``,
    ``supports_batch`` and ``max_workers`` are read from them (a class that still sets
    those three instead gets facts made from them)."""

    kind = "base"
    facts: ClassVar[ProviderFacts] = ProviderFacts()
    is_agent: ClassVar[bool] = False  # facts.agent_prompt: file paths, not inlined files
    supports_batch: ClassVar[bool] = False  # facts.batching
    max_workers: ClassVar[int | None] = None  # facts.max_workers (vscode: 1)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "facts" not in cls.__dict__:
            legacy = {k: cls.__dict__[k] for k in _LEGACY if k in cls.__dict__}
            if legacy:
                cls.facts = _legacy_facts(cls.facts, legacy)
        cls.is_agent = cls.facts.agent_prompt
        cls.supports_batch = cls.facts.batching
        cls.max_workers = cls.facts.max_workers

    def __init__(self, target: "Target"):
        self.target = target
        self.name = target.name
        self.settings = target.settings

    @property
    def typed_settings(self) -> Any:
        """The target's validated settings model (``Target.config``), validated here from
        ``target.settings`` when the target was built by hand (ConfigError when invalid)."""
        if self.target.config is None:
            from agentv.providers.base_settings import parse_settings
            self.target.config = parse_settings(self.facts.settings_model(),
                                                self.target.settings, where=self.target.where,
                                                from_env=True)
        return self.target.config

    def check(self) -> None:
        return None

    def agent_prompt(self, request: Request) -> str | None:
        """The exact text an agent target sends its program (``--dump-prompts`` shows it);
        None when the request's question is sent as it is."""
        return None

    def use_eval_dirs(self, dirs: list[str]) -> None:
        """The directories of the eval files this target runs (before ``check``); targets
        that run commands there (cli) take them, others ignore them."""
        return None

    @abstractmethod
    async def invoke(self, request: Request) -> Response:
        """One call to the target; transient failures raise ProviderError(retryable=True)."""

    async def aclose(self) -> None:
        return None


def _legacy_facts(inherited: ProviderFacts, legacy: dict[str, Any]) -> ProviderFacts:
    """Facts of a class that says ``is_agent = True`` etc. the way providers used to."""
    family = inherited.family
    if "is_agent" in legacy:
        family = "agent" if legacy["is_agent"] else ("llm" if family != "mock" else family)
    return replace(inherited, family=family,
                   batching=legacy.get("supports_batch", inherited.batching),
                   max_workers=legacy.get("max_workers", inherited.max_workers))


@dataclass
class Target:
    """A target from targets.yaml with its settings resolved (env interpolated).

    ``settings`` holds every key except the structural ones; ``secrets`` lists resolved
    values that must never be written anywhere (the writer redacts them)."""

    name: str
    provider: str
    settings: dict[str, Any] = field(default_factory=dict)
    judge_target: str | None = None
    workers: int | None = None
    provider_batching: bool = False
    shared_limit: Any = None  # providers.limits.SharedLimit: slots shared through Prefect
    where: str = ""  # file:line of the target entry
    base_dir: str = "."  # directory of the targets file (for relative paths)
    secrets: list[str] = field(default_factory=list)
    config: Any = None  # the provider's validated settings model (providers.base_settings)

    def secret_values(self) -> list[str]:
        """Every value of this target that must never be written: the secret-marked fields
        of its settings model and the secret-looking values found while resolving it."""
        from agentv.providers.base_settings import secret_values
        return sorted(set(self.secrets) | set(secret_values(self.config)))

    def setting(self, *names: str, default: Any = None) -> Any:
        """First present setting among snake_case/camelCase aliases."""
        for n in names:
            if n in self.settings and self.settings[n] is not None:
                return self.settings[n]
        return default
