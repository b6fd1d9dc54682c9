"""``provider: claude`` (aliases ``claude-cli``, ``claude-code``) — Anthropic's Claude Code as
an agent target (contract of ``@anthropic-ai/claude-code`` 2.1.328: ``claude -p
--output-format stream-json --verbose --no-session-persistence [flags]``, the prompt on stdin).

Settings (AgentV 4.42.4's names): ``executable`` (default ``claude``), ``model``, ``cwd``,
``system_prompt`` (``--append-system-prompt``: Claude Code keeps its own), ``timeout_seconds``,
``max_turns``, ``max_budget_usd``, ``log_dir``, ``args``; ``base_url`` and ``api_key`` /
``bearer_token`` reach the program only as ``ANTHROPIC_BASE_URL`` / ``ANTHROPIC_API_KEY`` /
``ANTHROPIC_AUTH_TOKEN`` in its environment; ``allowed_tools`` / ``disallowed_tools``
(``--allowedTools`` / ``--disallowedTools``); ``approval_preset``: ``read-only``
(``--permission-mode dontAsk``: anything needing approval is denied), ``auto``
(``acceptEdits``: edits and file commands in the workspace), ``full-access``
(``bypassPermissions``, AgentV's ``bypass_permissions: true``; Claude Code refuses it when run
as root, so there it is a configuration error). Default: Claude Code's own ``default`` mode.

Events (one JSON object per line): ``system/init`` (model, tools), ``assistant`` (one per
content block, ``message.id`` per model call: ``text`` and ``tool_use`` blocks), ``user``
(``tool_result`` blocks, ``is_error``; a permission denial is a failed call), ``result``
(the answer ``result``, ``usage``, ``total_cost_usd``, ``duration_ms``, ``is_error`` with
``terminal_reason`` such as ``api_error``).
"""
from __future__ import annotations

import os
from typing import Any, ClassVar

from pydantic import field_validator

from agentv.providers.agents.agent_cli import AgentCliProvider
from agentv.providers.agents.agent_settings import AgentCliSettings
from agentv.providers.agents.events import AgentRun, ToolCalls, json_events, mapping, text_of
from agentv.providers.agents.workspace import Workspace
from agentv.providers.base import ConfigError
from agentv.providers.base_settings import Float, Int, setting_field
from agentv.providers.facts import ProviderFacts

PRESETS = {"read-only": ["--permission-mode", "dontAsk"],
           "auto": ["--permission-mode", "acceptEdits"],
           "full-access": ["--permission-mode", "bypassPermissions"]}
BASE_FLAGS = ["-p", "--output-format", "stream-json", "--verbose", "--no-session-persistence"]
# what keeps Claude Code from calling home; the rest of its environment is the OS's
QUIET_ENV = {"DISABLE_TELEMETRY": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
             "DISABLE_AUTOUPDATER": "1"}
ROOT_REFUSES = "full-access"  # --dangerously-skip-permissions / bypassPermissions as root
ROOT_MESSAGE = ("refused by Claude Code 2.1.328 when run as root (bypassPermissions, "
                "--dangerously-skip-permissions); use approval_preset auto or allowed_tools")


def _root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


class ClaudeSettings(AgentCliSettings):
    presets: ClassVar[dict[str, list[str]] | None] = PRESETS

    base_url: str | None = setting_field("base_url", "endpoint", url=True,
                                         description="an Anthropic Messages API endpoint")
    api_key: str | None = setting_field("api_key", secret=True)
    bearer_token: str | None = setting_field("bearer_token", secret=True)
    max_turns: Int | None = setting_field("max_turns", ge=1)
    max_budget_usd: Float | None = setting_field("max_budget_usd", gt=0)
    bypass_permissions: bool | None = setting_field(
        "bypass_permissions", description="true: approval_preset full-access")
    allowed_tools: list[str] | str | None = setting_field("allowed_tools", "allowedTools")
    disallowed_tools: list[str] | str | None = setting_field("disallowed_tools",
                                                             "disallowedTools")

    @field_validator("approval_preset", "bypass_permissions")
    @classmethod
    def _root_refuses(cls, value: Any) -> Any:
        if _root() and value in (ROOT_REFUSES, True):
            raise ValueError(ROOT_MESSAGE)
        return value


def _tools(value: Any) -> str | None:
    if value is None:
        return None
    return ",".join(value) if isinstance(value, list) else str(value)


class ClaudeProvider(AgentCliProvider):
    """Claude Code (`claude -p --output-format stream-json`) as an agent target."""
    kind = "claude"
    facts = ProviderFacts("agent", settings=ClaudeSettings, program="claude",
                          secret_env=("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"))
    program = "claude"
    install_hint = "npm install -g @anthropic-ai/claude-code@2.1.328"
    env_names = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL",
                 "CLAUDE_CONFIG_DIR")
    presets = PRESETS
    system_prompt_flag = "--append-system-prompt"

    def __init__(self, target):
        super().__init__(target)
        s = target.setting
        if s("bypass_permissions") is True and self.preset is None:
            self.preset = "full-access"
        if self.preset == ROOT_REFUSES and _root():
            raise ConfigError(ROOT_MESSAGE, target.where, "approval_preset")
        self.base_url, self.api_key = s("base_url", "endpoint"), s("api_key")
        self.bearer_token = s("bearer_token")
        self.max_turns, self.max_budget = s("max_turns"), s("max_budget_usd")
        self.allowed = _tools(s("allowed_tools", "allowedTools"))
        self.disallowed = _tools(s("disallowed_tools", "disallowedTools"))

    def flags(self, ws: Workspace) -> list[str]:
        argv = [*BASE_FLAGS, *PRESETS.get(self.preset or "", []), *self.system_flags()]
        for flag, value in (("--model", self.model), ("--max-turns", self.max_turns),
                            ("--max-budget-usd", self.max_budget),
                            ("--allowedTools", self.allowed),
                            ("--disallowedTools", self.disallowed)):
            if value is not None:
                argv += [flag, str(value)]
        return argv + self.args

    def program_env(self, ws: Workspace) -> dict[str, str]:
        env = dict(QUIET_ENV)
        for name, value in (("ANTHROPIC_BASE_URL", self.base_url),
                            ("ANTHROPIC_API_KEY", self.api_key),
                            ("ANTHROPIC_AUTH_TOKEN", self.bearer_token)):
            if value:
                env[name] = str(value)
        return env

    def parse(self, lines: list[tuple[float, str]], ws: Workspace) -> AgentRun:
        return parse_stream(lines, self.model)


def parse_stream(lines: list[tuple[float, str]], model: str | None = None) -> AgentRun:
    run = AgentRun(model=model)
    calls = ToolCalls(run)
    calls_seen: set[str] = set()
    last = 0.0
    for at, event in json_events(lines, "claude"):
        last, kind = at, event.get("type")
        message = mapping(event.get("message"))
        if kind == "system" and event.get("subtype") == "init":
            run.model = run.model or event.get("model")
        elif kind == "assistant":
            _assistant(run, calls, calls_seen, at, message)
        elif kind == "user":
            _results(calls, at, event, message)
        elif kind == "result":
            _result(run, event)
    calls.close(last)
    return run


def _assistant(run: AgentRun, calls: ToolCalls, seen: set[str], at: float,
               message: dict[str, Any]) -> None:
    mid = str(message.get("id"))
    if mid not in seen and message.get("model") != "<synthetic>":
        seen.add(mid)
        usage = message.get("usage") or {}
        run.llm_call(at, message.get("model"), input_tokens=_input_tokens(usage))
    for block in message.get("content") or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and block.get("text"):
            run.text = str(block["text"])
        elif block.get("type") == "tool_use":
            calls.start(block.get("id"), at, str(block.get("name")), block.get("input"))


def _results(calls: ToolCalls, at: float, event: dict[str, Any],
             message: dict[str, Any]) -> None:
    meta = {str(m.get("id")): m for m in event.get("tool_result_meta") or []
            if isinstance(m, dict)}
    for block in message.get("content") or []:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            call_id = block.get("tool_use_id")
            denied = (meta.get(str(call_id)) or {}).get("non_execution_kind")
            calls.finish(call_id, at, text_of(block.get("content")),
                         ok=not block.get("is_error"), denied=denied)


def _result(run: AgentRun, event: dict[str, Any]) -> None:
    usage = event.get("usage") or {}
    run.add_usage(_input_tokens(usage), usage.get("output_tokens"),
                  usage.get("cache_read_input_tokens"), event.get("total_cost_usd"))
    if isinstance(event.get("duration_ms"), (int, float)):
        run.duration_ms = float(event["duration_ms"])
    if isinstance(event.get("result"), str):
        run.text = event["result"]
    if event.get("is_error"):
        reason = event.get("terminal_reason") or event.get("subtype")
        run.failure = f"{event.get('result') or reason} ({reason})"


def _input_tokens(usage: dict[str, Any]) -> int:
    """Input tokens as AgentV counts them: uncached + cache reads + cache writes."""
    return sum(int(usage.get(k) or 0) for k in ("input_tokens", "cache_read_input_tokens",
                                                 "cache_creation_input_tokens"))
