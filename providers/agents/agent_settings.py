"""Settings every agent-CLI target shares (AgentV 4.42.4's field names and aliases);
``providers.agents.claude`` / ``copilot`` / ``pi`` / ``codex`` extend them."""
from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import field_validator

from agentv.providers.base_settings import Float, ProviderSettings, seconds, setting_field


class AgentCliSettings(ProviderSettings):
    #: the presets this program maps to flags (subclasses set it; None: no presets)
    presets: ClassVar[dict[str, list[str]] | None] = None

    executable: str | None = setting_field("executable", "command", "binary",
                                           description="the program on PATH, or a path")
    args: list[str | int | float] | str | None = setting_field(
        "args", "arguments", description="extra arguments for the program")
    model: str | None = setting_field("model")
    cwd: str | None = setting_field("cwd", description="run here instead of a fresh workspace "
                                    "(relative to the targets file)")
    timeout_seconds: Float | None = seconds("timeout_seconds", "timeoutSeconds")
    log_dir: str | None = setting_field("log_dir", "logDir", "log_directory",
                                        description="each attempt's raw event stream")
    system_prompt: str | None = setting_field("system_prompt", "systemPrompt")
    approval_preset: str | None = setting_field(
        "approval_preset", "approvalPreset", "permission_preset",
        description="read-only | auto | full-access (mapped to the program's flags)")

    network: Literal["none", "loopback", "full"] | None = setting_field(
        "network", description="the sandbox's network: none | loopback | full (default)")
    sandbox: bool | Literal["on", "off"] | None = setting_field(
        "sandbox", description="off: run this agent without the OS sandbox")

    @field_validator("executable")
    @classmethod
    def _exe(cls, value: Any) -> Any:
        if value is not None and not value.strip():
            raise ValueError("must be the program's name or path")
        return value

    @field_validator("approval_preset")
    @classmethod
    def _preset(cls, value: Any) -> Any:
        presets = cls.presets or {}
        if value is not None and value not in presets:
            raise ValueError(f"unknown approval_preset {value!r} (known: "
                             f"{', '.join(presets) or 'none'})")
        return value
