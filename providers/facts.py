"""What a provider is, declared once on its class (``facts = ProviderFacts(...)``) and read
through ``providers.registry`` by everyone else: validate, the plan, the request record, the
retry policy, the JSON Schema and the docs tables. No Prefect, no litellm, no pydantic.

``family`` says what the provider is, in AgentV's terms:

* ``llm``      an LLM API: gets the chat with file contents inlined; may be its own judge;
               every transient failure is retried (3 times by default);
* ``agent``    a coding-agent program (AgentV's ``AGENT_PROVIDER_KINDS``: codex, claude,
               copilot, pi, vscode): gets file references, the record keeps
               ``agent_provider_request``; only timeouts are retried (twice by default);
* ``command``  a command template (``cli``): an agent as far as prompts and retries go,
               but its record keeps ``lm_provider_request`` as AgentV's does;
* ``mock``     the offline test double: LLM-shaped, and its own offline judge.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from agentv.providers.lazyload import load_symbol

if TYPE_CHECKING:
    from agentv.providers.base_settings import ProviderSettings

Family = Literal["llm", "agent", "command", "mock"]
LABELS: dict[str, str] = {"llm": "LLM", "agent": "agent", "command": "agent (command)",
                          "mock": "testing"}


@dataclass(frozen=True)
class ProviderFacts:
    """The facts of one provider class. ``settings`` is its typed settings model
    (``ProviderSettings`` when None; a ``"module:Class"`` name when the settings module
    imports the provider's); ``secret_env`` the environment variables holding its
    credentials (their values are registered as secrets when a target of it is used);
    ``batching`` that it answers many cases in one call (``provider_batching``);
    ``max_workers`` how many cases it runs at a time (vscode: one window); ``program`` the
    executable an agent CLI runs unless its settings name another."""

    family: Family = "llm"
    settings: type[ProviderSettings] | str | None = None
    secret_env: tuple[str, ...] = ()
    batching: bool = False
    max_workers: int | None = None
    program: str | None = None

    def settings_model(self) -> Any:
        """The settings model itself (imported when named by a string)."""
        if isinstance(self.settings, str):
            return load_symbol(self.settings)
        if self.settings is None:
            from agentv.providers.base_settings import ProviderSettings
            return ProviderSettings
        return self.settings

    @property
    def agent_prompt(self) -> bool:
        """Gets file references and its own preread block, not inlined file contents."""
        return self.family in ("agent", "command")

    @property
    def agent_record(self) -> bool:
        """Its record keeps ``agent_provider_request`` (AgentV's agent providers)."""
        return self.family == "agent"

    @property
    def retry_timeouts_only(self) -> bool:
        """A program's failure is its answer; only a timeout is worth another try."""
        return self.agent_prompt

    @property
    def default_max_retries(self) -> int:
        return 2 if self.agent_prompt else 3

    @property
    def label(self) -> str:
        """The kind as the docs table shows it."""
        return LABELS[self.family]
