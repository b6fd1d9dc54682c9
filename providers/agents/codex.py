"""``provider: codex`` — OpenAI's Codex CLI as an agent target (contract of
``@openai/codex`` 0.169: ``codex [flags] exec --json --color never --skip-git-repo-check
--ephemeral -``, the prompt on stdin), on the agent-CLI base (``providers.agents.agent_cli``:
workspace with the case's files mirrored in, pre-read prompt, supervision, logs, trace).

Settings: ``executable`` (default ``codex``; a name on PATH or a path relative to the
targets file), ``args`` (extra arguments before ``exec``), ``profile``, ``model``,
``approval_preset`` (see ``APPROVAL_PRESETS``: ``read-only``, ``auto``, ``full-access``,
``on-request``, ``never``; Codex 0.169 has no ``untrusted``/``on-failure`` policy and no
``--full-auto``, so those are configuration errors), ``cwd`` (default: a fresh workspace
per case), ``timeout_seconds``, ``log_dir`` (each case attempt's raw event stream;
default ``.agentv/logs/codex``, as AgentV). ``--ephemeral`` keeps codex from writing session
rollouts under CODEX_HOME.

The JSONL events give the final assistant message, the trace and token usage
(``providers.agents.codex_events``); a ``turn.failed``/``error`` event is the case's error
with codex's own message. Tool processes codex leaves running are killed with the case.
"""
from __future__ import annotations

import os
import tomllib
from dataclasses import replace

from agentv.providers.agents.agent_cli import AgentCliProvider
from agentv.providers.agents.codex_events import parse_stream
from agentv.providers.agents.events import AgentRun
from agentv.providers.agents.workspace import Workspace
from agentv.providers.base import ConfigError
from agentv.providers.facts import ProviderFacts
from agentv.providers.process import sandbox
from agentv.providers.process.sandbox import Profile

APPROVAL_PRESETS = {  # preset -> flags Codex CLI 0.169 accepts (before ``exec``)
    "read-only": ["--sandbox", "read-only", "--ask-for-approval", "never"],
    "auto": ["--sandbox", "workspace-write", "--ask-for-approval", "never"],
    "full-access": ["--dangerously-bypass-approvals-and-sandbox"],
    "on-request": ["--ask-for-approval", "on-request"],
    "never": ["--ask-for-approval", "never"],
}
# the .env variables codex itself reads (everything else in .env stays out of its environment)
CODEX_ENV = ("OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL", "CODEX_HOME")
GONE_POLICIES = ("untrusted", "on-failure")  # removed from --ask-for-approval by Codex
EXEC_ARGS = ["exec", "--json", "--color", "never", "--skip-git-repo-check", "--ephemeral", "-"]


def approval_flags(preset: object, where: str) -> list[str]:
    if preset is None:
        return []
    if preset in GONE_POLICIES:
        raise ConfigError(f"approval policy {preset!r} is not accepted by Codex CLI 0.169 "
                          "(--ask-for-approval takes on-request or never); use one of "
                          f"{', '.join(APPROVAL_PRESETS)}", where, "approval_preset")
    if preset not in APPROVAL_PRESETS:
        raise ConfigError(f"unknown approval_preset {preset!r} (known: "
                          f"{', '.join(APPROVAL_PRESETS)})", where, "approval_preset")
    return APPROVAL_PRESETS[str(preset)]


def config_env_keys() -> list[str]:
    """The ``env_key`` names of ``$CODEX_HOME/config.toml``'s model providers."""
    home = os.environ.get("CODEX_HOME") or os.path.expanduser("~/.codex")
    try:
        with open(os.path.join(home, "config.toml"), "rb") as fh:
            config = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError):
        return []
    providers = config.get("model_providers")
    return [str(p["env_key"]) for p in (providers.values() if isinstance(providers, dict)
                                        else []) if isinstance(p, dict) and p.get("env_key")]


class CodexProvider(AgentCliProvider):
    """The Codex CLI (`codex exec --json`) as an agent target; its events become the trace."""
    kind = "codex"
    # its settings module imports this one (approval_flags): named, not imported
    facts = ProviderFacts("agent", settings="agentv.providers.agents.codex_settings:CodexSettings",
                          program="codex", secret_env=("OPENAI_API_KEY", "CODEX_API_KEY"))
    program = "codex"
    install_hint = "npm install -g @openai/codex@0.169.0"
    env_names = CODEX_ENV
    presets = APPROVAL_PRESETS
    failure_phrase = "turn failed"

    def __init__(self, target):
        super().__init__(target)
        self.profile = target.setting("profile")

    def check_preset(self, preset: object, where: str) -> str | None:
        approval_flags(preset, where)
        return None if preset is None else str(preset)

    def program_env(self, ws: Workspace) -> dict[str, str]:
        """The key variables ``$CODEX_HOME/config.toml`` names (``env_key``): the target's
        own secrets, passed through the environment allow-list."""
        return {k: os.environ[k] for k in config_env_keys() if k in os.environ}

    def flags(self, ws: Workspace) -> list[str]:
        argv = list(self.args)
        if self.profile:
            argv += ["--profile", str(self.profile)]
        if self.model:
            argv += ["--model", str(self.model)]
        return argv + self._approval() + EXEC_ARGS

    def _sandboxed(self) -> bool:
        return sandbox.enabled() and self.target.setting("sandbox") not in (False, "off")

    def _approval(self) -> list[str]:
        """The preset's flags. Codex's own sandbox (bwrap) cannot start inside agentv's (no
        namespaces there): a ``--sandbox`` preset is enforced by agentv's instead."""
        flags = approval_flags(self.preset, self.target.where)
        if flags[:1] == ["--sandbox"] and self._sandboxed():
            return ["--dangerously-bypass-approvals-and-sandbox"]
        return flags

    def sandbox_profile(self, ws: Workspace, env: dict[str, str]) -> Profile:
        """``read-only``: agentv's sandbox keeps the workspace read-only too (only codex's
        state and agentv's side folder writable); ``auto``: the workspace writable."""
        profile = super().sandbox_profile(ws, env)
        if self.preset != "read-only" or not self._sandboxed():
            return profile
        keep = [str(ws.side), *(w for w in profile.writable if w not in (str(ws.path),)
                                 and (ws.root is None or w != str(ws.root)))]
        return replace(profile, writable=tuple(dict.fromkeys(keep)))

    def parse(self, lines: list[tuple[float, str]], ws: Workspace) -> AgentRun:
        return parse_stream(lines, self.model)
