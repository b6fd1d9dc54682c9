"""``provider: copilot-cli`` (alias ``copilot``) — GitHub Copilot CLI as an agent target
(contract of ``@github/copilot`` 1.0.102: ``copilot --output-format json --no-color
--no-auto-update --usage-output-file F [flags]``, the prompt on stdin).

Settings (AgentV 4.42.4's names): ``executable`` (default ``copilot``), ``model``, ``cwd``,
``system_prompt`` (leads the prompt, as AgentV does), ``timeout_seconds``, ``log_dir``,
``args``; a bring-your-own provider through ``subprovider`` (``openai`` | ``azure`` |
``anthropic``), ``base_url``, ``api_key`` / ``bearer_token``, ``api_version``, ``api_format``
(``completions`` | ``responses``), mapped to Copilot's ``COPILOT_PROVIDER_*`` variables in the
child's environment only (``COPILOT_OFFLINE=true`` then: no GitHub traffic at all); omitted
fields leave ambient ``COPILOT_PROVIDER_*`` values as they are. ``approval_preset``:
``read-only`` (``--deny-tool=shell --deny-tool=write``), ``auto`` (``--allow-all-tools``,
AgentV's default, paths still confined to the workspace), ``full-access`` (``--allow-all``).

Events (one JSON object per line): ``assistant.message`` (one per model call: ``content``,
``toolRequests``), ``tool.execution_start`` / ``tool.execution_complete`` (``success``,
``result.content`` or ``error {message, code}``; a shell command that exits non-zero is a
failed call), ``session.error`` (the run's failure), ``result`` (``exitCode``,
``usage.sessionDurationMs``). Token counts are not in the stream: they are read from the
``--usage-output-file`` JSON (``modelMetrics.*.usage``).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar, Literal

from agentv.providers.agents.agent_cli import AgentCliProvider
from agentv.providers.agents.agent_settings import AgentCliSettings
from agentv.providers.agents.events import AgentRun, ToolCalls, json_events, mapping
from agentv.providers.agents.workspace import Workspace
from agentv.providers.base_settings import setting_field
from agentv.providers.facts import ProviderFacts

PRESETS = {"read-only": ["--deny-tool=shell", "--deny-tool=write"],
           "auto": ["--allow-all-tools"],
           "full-access": ["--allow-all"]}
BASE_FLAGS = ["--output-format", "json", "--no-color", "--no-auto-update",
              "--disable-client-telemetry"]
USAGE_FILE = "copilot-usage.json"
PROVIDER_ENV = (("subprovider", "COPILOT_PROVIDER_TYPE"), ("base_url", "COPILOT_PROVIDER_BASE_URL"),
                ("api_key", "COPILOT_PROVIDER_API_KEY"),
                ("bearer_token", "COPILOT_PROVIDER_BEARER_TOKEN"),
                ("api_version", "COPILOT_PROVIDER_AZURE_API_VERSION"),
                ("api_format", "COPILOT_PROVIDER_WIRE_API"))


class CopilotSettings(AgentCliSettings):
    presets: ClassVar[dict[str, list[str]] | None] = PRESETS

    subprovider: Literal["openai", "azure", "anthropic"] | None = setting_field(
        "subprovider", description="bring-your-own provider type")
    base_url: str | None = setting_field("base_url", "endpoint", url=True)
    api_key: str | None = setting_field("api_key", secret=True)
    bearer_token: str | None = setting_field("bearer_token", secret=True)
    api_version: str | None = setting_field("api_version")
    api_format: Literal["completions", "responses"] | None = setting_field("api_format")


class CopilotProvider(AgentCliProvider):
    """GitHub Copilot CLI (`copilot --output-format json`) as an agent target."""
    kind = "copilot-cli"
    facts = ProviderFacts("agent", settings=CopilotSettings, program="copilot",
                          secret_env=("COPILOT_PROVIDER_API_KEY", "COPILOT_PROVIDER_BEARER_TOKEN",
                                      "COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"))
    program = "copilot"
    install_hint = "npm install -g @github/copilot@1.0.102"
    env_names = tuple(name for _, name in PROVIDER_ENV) + (
        "COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN", "COPILOT_HOME", "COPILOT_MODEL")
    presets = PRESETS

    def __init__(self, target):
        super().__init__(target)
        self.provider_env = {env: str(target.setting(key)) for key, env in PROVIDER_ENV
                             if target.setting(key) is not None}
        self.preset = self.preset or "auto"

    def flags(self, ws: Workspace) -> list[str]:
        argv = [*BASE_FLAGS, "--usage-output-file", str(ws.side / USAGE_FILE),
                *PRESETS[self.preset or "auto"]]
        return argv + (["--model", str(self.model)] if self.model else []) + self.args

    def program_env(self, ws: Workspace) -> dict[str, str]:
        env = dict(self.provider_env)
        if "COPILOT_PROVIDER_BASE_URL" in env:
            env["COPILOT_OFFLINE"] = "true"
        return env

    def parse(self, lines: list[tuple[float, str]], ws: Workspace) -> AgentRun:
        run = parse_stream(lines, self.model)
        add_usage(run, ws.side / USAGE_FILE)
        return run


def parse_stream(lines: list[tuple[float, str]], model: str | None = None) -> AgentRun:
    run = AgentRun(model=model)
    calls = ToolCalls(run)
    last = 0.0
    for at, event in json_events(lines, "copilot"):
        last, kind = at, event.get("type")
        data = mapping(event.get("data"))
        if kind == "assistant.message":
            run.llm_call(at, data.get("model"))
            if data.get("content"):
                run.text = str(data["content"])
        elif kind == "tool.execution_start":
            calls.start(data.get("toolCallId"), at, str(data.get("toolName")),
                        data.get("arguments"))
        elif kind == "tool.execution_complete":
            _complete(calls, at, data)
        elif kind == "session.error":
            run.failure = str(data.get("message") or data.get("errorType") or kind)
        elif kind == "session.warning":
            run.warnings.append(str(data.get("message")))
        elif kind == "result":
            usage = mapping(event.get("usage"))
            if isinstance(usage.get("sessionDurationMs"), (int, float)):
                run.duration_ms = float(usage["sessionDurationMs"])
            if event.get("exitCode") not in (0, None) and not run.failure:
                run.failure = f"exit code {event.get('exitCode')}"
    calls.close(last)
    return run


def _complete(calls: ToolCalls, at: float, data: dict[str, Any]) -> None:
    exit_code = mapping(data.get("shellExecution")).get("exitCode")
    error = mapping(data.get("error"))
    result: Any = mapping(data.get("result")).get("content")
    if error:
        result = error.get("message")
    ok = bool(data.get("success")) and exit_code in (None, 0)
    calls.finish(data.get("toolCallId"), at, result, ok, exit_code=exit_code,
                 denied=error.get("code") if error else None)


def add_usage(run: AgentRun, path: Path) -> None:
    """Token counts from ``--usage-output-file`` (absent when copilot never got that far)."""
    try:
        usage = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    for metrics in mapping(mapping(usage).get("modelMetrics")).values():
        u = mapping(mapping(metrics).get("usage"))
        run.add_usage(u.get("inputTokens"), u.get("outputTokens"), u.get("cacheReadTokens"))
