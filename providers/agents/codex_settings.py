"""``provider: codex`` settings (see ``providers.agents.codex``): typed, checked before any case."""
from __future__ import annotations

from typing import Any

from pydantic import field_validator

from providers.errors import ConfigError
from providers.base_settings import Float, ProviderSettings, seconds, setting_field


class CodexSettings(ProviderSettings):
    executable: str | None = setting_field("executable", "command",
                                     description="codex on PATH, or a path")
    args: list[str | int | float] | str | None = setting_field(
        "args", description="extra arguments before 'exec'")
    profile: str | None = setting_field("profile")
    model: str | None = setting_field("model")
    approval_preset: str | None = setting_field("approval_preset", "approvalPreset")
    cwd: str | None = setting_field("cwd", description="relative to the targets file")
    timeout_seconds: Float | None = seconds("timeout_seconds", "timeoutSeconds")
    log_dir: str | None = setting_field("log_dir", "logDir")

    @field_validator("approval_preset")
    @classmethod
    def _preset(cls, value: Any) -> Any:
        from providers.agents.codex import approval_flags  # one rule: the provider's
        try:
            approval_flags(value, "")
        except ConfigError as err:
            raise ValueError(err.message) from None
        return value

    @field_validator("executable")
    @classmethod
    def _exe(cls, value: Any) -> Any:
        if value is not None and not value.strip():
            raise ValueError("must be the codex executable's name or path")
        return value
