"""``provider: vscode`` / ``vscode-insiders`` settings (see ``providers.agents.vscode``)."""
from __future__ import annotations

from typing import Literal

from agentv.providers.base_settings import Float, ProviderSettings, seconds, setting_field


class VSCodeSettings(ProviderSettings):
    subagent: str | None = setting_field("subagent", "subagent_executable",
                                   description="the subagent CLI (default: subagent)")
    vscode_cmd: str | None = setting_field("vscode_cmd", "vscodeCmd")
    workspace_template: str | None = setting_field("workspace_template", "workspaceTemplate",
                                             description="a .code-workspace file")
    timeout_seconds: Float | None = seconds("timeout_seconds", "timeoutSeconds")
    network: Literal["none", "loopback", "full"] | None = setting_field(
        "network", description="the sandbox's network: none | loopback | full (default)")
    sandbox: bool | Literal["on", "off"] | None = setting_field(
        "sandbox", description="off: run subagent without the OS sandbox")
