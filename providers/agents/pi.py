"""``provider: pi-coding-agent`` (also ``pi``, ``pi-cli``) — Mario Zechner's pi coding agent as an
agent target (contract of ``@mariozechner/pi-coding-agent`` 0.73.1: ``pi -p --mode json
--no-session --offline [flags]``, the prompt on stdin).

Settings (AgentV 4.42.4's names): ``executable`` (default ``pi``), ``subprovider`` (pi's
``--provider``), ``model``, ``thinking`` (``off`` … ``xhigh``), ``tools`` (pi's ``--tools``
allow-list, e.g. ``read,bash,edit,write``), ``system_prompt`` (``--append-system-prompt``),
``cwd``, ``timeout_seconds``, ``log_dir``, ``args``; ``api_key`` reaches pi only through its
environment (the subprovider's own variable, e.g. ``OPENAI_API_KEY``). With ``base_url``
(any OpenAI-compatible endpoint; ``api_format: responses`` for the Responses API,
``subprovider: anthropic`` for a Messages API) agentv writes a private pi config folder for
the run (``PI_CODING_AGENT_DIR``): ``models.json`` naming the endpoint with the *name* of
the variable holding the key, never the key, and ``settings.json`` turning pi's own retries
off (agentv retries). ``approval_preset`` (pi asks no permission; presets choose tools):
``read-only`` (``read,grep,find,ls``), ``auto`` (pi's default ``read,bash,edit,write``),
``full-access`` (all seven built-in tools).

Events (``--mode json``, one JSON object per line): ``message_end`` of the assistant (one
per model call: ``content`` text/toolCall parts, ``usage`` input/output/cacheRead/cacheWrite/
cost, ``stopReason``, ``errorMessage``), ``tool_execution_start`` / ``tool_execution_end``
(``result.content``, ``isError``), ``auto_retry_end`` (``finalError``). pi exits 0 when the
model call failed: a last ``stopReason: error`` is the run's failure.
"""
from __future__ import annotations

import json
from typing import Any, ClassVar, Literal

from agentv.providers.agents.agent_cli import AgentCliProvider
from agentv.providers.agents.agent_settings import AgentCliSettings
from agentv.providers.agents.events import AgentRun, ToolCalls, json_events, mapping, text_of
from agentv.providers.agents.workspace import Workspace
from agentv.providers.base_settings import setting_field
from agentv.providers.facts import ProviderFacts

PRESETS = {"read-only": ["--tools", "read,grep,find,ls"], "auto": [],
           "full-access": ["--tools", "read,bash,edit,write,grep,find,ls"]}
BASE_FLAGS = ["-p", "--mode", "json", "--no-session", "--offline"]
KEY_ENV = "AGENTV_PI_API_KEY"  # the variable models.json names for a base_url endpoint
CUSTOM = "agentv"  # pi provider name of a base_url endpoint without a subprovider
SPECIAL_KEYS = {"google": "GEMINI_API_KEY", "azure": "AZURE_OPENAI_API_KEY",
                "azure-openai-responses": "AZURE_OPENAI_API_KEY"}
Thinking = Literal["off", "minimal", "low", "medium", "high", "xhigh"]


class PiSettings(AgentCliSettings):
    presets: ClassVar[dict[str, list[str]] | None] = PRESETS

    subprovider: str | None = setting_field("subprovider", description="pi's --provider")
    thinking: Thinking | None = setting_field("thinking", "pi_thinking")
    tools: str | list[str] | None = setting_field("tools", "pi_tools")
    base_url: str | None = setting_field("base_url", "endpoint", url=True)
    api_key: str | None = setting_field("api_key", secret=True)
    api_format: Literal["completions", "responses", "messages"] | None = setting_field(
        "api_format")


def key_variable(subprovider: str | None) -> str:
    name = (subprovider or "google").lower()
    return SPECIAL_KEYS.get(name, name.upper().replace("-", "_") + "_API_KEY")


class PiProvider(AgentCliProvider):
    """pi (`pi -p --mode json`) as an agent target."""
    kind = "pi-coding-agent"
    facts = ProviderFacts("agent", settings=PiSettings, program="pi",
                          secret_env=("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY",
                                      "AZURE_OPENAI_API_KEY", "OPENROUTER_API_KEY"))
    program = "pi"
    install_hint = "npm install -g @mariozechner/pi-coding-agent@0.73.1"
    env_names = ("PI_CODING_AGENT_DIR", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY",
                 "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_BASE_URL", "OPENROUTER_API_KEY")
    presets = PRESETS
    system_prompt_flag = "--append-system-prompt"

    def __init__(self, target):
        super().__init__(target)
        s = target.setting
        self.subprovider, self.thinking = s("subprovider"), s("thinking", "pi_thinking")
        tools = s("tools", "pi_tools")
        self.tools = ",".join(tools) if isinstance(tools, list) else tools
        self.base_url, self.api_key = s("base_url", "endpoint"), s("api_key")
        self.api_format = s("api_format")

    def flags(self, ws: Workspace) -> list[str]:
        argv = list(BASE_FLAGS)
        provider = (self.subprovider or CUSTOM) if self.base_url else self.subprovider
        if provider:
            argv += ["--provider", str(provider)]
        if self.model:
            argv += ["--model", str(self.model)]
        if self.thinking:
            argv += ["--thinking", str(self.thinking)]
        argv += ["--tools", self.tools] if self.tools else PRESETS[self.preset or "auto"]
        return argv + self.system_flags() + self.args

    def program_env(self, ws: Workspace) -> dict[str, str]:
        if not self.base_url:
            return {key_variable(self.subprovider): str(self.api_key)} if self.api_key else {}
        home = ws.side / "pi-agent"
        home.mkdir(exist_ok=True)
        (home / "models.json").write_text(json.dumps(self.models_config()), encoding="utf-8")
        (home / "settings.json").write_text(json.dumps({"retry": {"enabled": False}}),
                                            encoding="utf-8")
        env = {"PI_CODING_AGENT_DIR": str(home), "PI_OFFLINE": "1"}
        if self.api_key:
            env[KEY_ENV] = str(self.api_key)
        return env

    def models_config(self) -> dict[str, Any]:
        """pi's ``models.json`` for ``base_url``: the key by variable name only."""
        api = ("anthropic-messages" if self.api_format == "messages"
               or (self.subprovider or "").lower() == "anthropic"
               else "openai-responses" if self.api_format == "responses"
               else "openai-completions")
        provider = {"baseUrl": str(self.base_url), "api": api,
                    "apiKey": KEY_ENV if self.api_key else "none",
                    "models": [{"id": str(self.model)}] if self.model else []}
        return {"providers": {str(self.subprovider or CUSTOM): provider}}

    def parse(self, lines: list[tuple[float, str]], ws: Workspace) -> AgentRun:
        return parse_stream(lines, self.model)


def parse_stream(lines: list[tuple[float, str]], model: str | None = None) -> AgentRun:
    run = AgentRun(model=model)
    calls = ToolCalls(run)
    last = 0.0
    for at, event in json_events(lines, "pi"):
        last, kind = at, event.get("type")
        if kind == "message_end" and isinstance(event.get("message"), dict):
            _message(run, at, event["message"])
        elif kind == "tool_execution_start":
            calls.start(event.get("toolCallId"), at, str(event.get("toolName")),
                        event.get("args"))
        elif kind == "tool_execution_end":
            calls.finish(event.get("toolCallId"), at,
                         text_of(mapping(event.get("result")).get("content")),
                         ok=not event.get("isError"), name=event.get("toolName"))
        elif kind == "auto_retry_end" and not event.get("success"):
            run.failure = str(event.get("finalError") or "retries exhausted")
    calls.close(last)
    return run


def _message(run: AgentRun, at: float, message: dict[str, Any]) -> None:
    if message.get("role") != "assistant":
        return
    usage = message.get("usage") or {}
    cached = int(usage.get("cacheRead") or 0)
    inp = int(usage.get("input") or 0) + cached + int(usage.get("cacheWrite") or 0)
    cost = (usage.get("cost") or {}).get("total") or None  # 0: pi knows no price
    failed = message.get("stopReason") == "error"
    run.llm_call(at, message.get("model"), input_tokens=inp, output_tokens=usage.get("output"),
                 cost_usd=cost, ok=not failed)
    run.add_usage(inp, usage.get("output"), cached, cost)
    text = text_of([p for p in message.get("content") or [] if isinstance(p, dict)
                    and p.get("type") == "text"])
    if text:
        run.text = text
    if failed:
        run.failure = str(message.get("errorMessage") or "model call failed")
    elif message.get("stopReason") in ("stop", "toolUse", "length"):
        run.failure = None
