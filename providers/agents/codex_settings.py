"""``provider: codex`` settings (see ``providers.agents.codex``): the agent-CLI settings
(``providers.agents.agent_settings``) plus ``profile``; typed, checked before any case."""
from __future__ import annotations

from typing import Any

from pydantic import field_validator

from agentv.providers.agents.agent_settings import AgentCliSettings
from agentv.providers.base_settings import setting_field
from agentv.providers.errors import ConfigError


class CodexSettings(AgentCliSettings):
    profile: str | None = setting_field("profile")

    @field_validator("approval_preset")
    @classmethod
    def _preset(cls, value: Any) -> Any:
        from agentv.providers.agents.codex import approval_flags  # one rule: the provider's
        try:
            approval_flags(value, "")
        except ConfigError as err:
            raise ValueError(err.message) from None
        return value
