"""The real agent programs the agent tests drive (installed by .ci/install.d/35-agent-clis.sh,
found through ``tests.conftest.real_tool``), each pointed at the loopback model API of
``tests/fakes/agent_api_stub.py`` with a key that only its environment carries.

``build(program, url, tmp_path, **settings)`` makes the checked provider; ``isolate``
gives a test its own temporary folder (workspaces kept after a failed case land there, not
in /tmp) and a ``HOME`` shared by the test session (the programs write their config and
caches there: Copilot unpacks itself into ``~/.cache`` on its first run); ``left_in(path)``
lists processes still running in a folder (after a timeout there must be none).
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from providers.base import Target
from tests.conftest import real_tool

KEY = "sk-agentv-test-SECRET-7f3a9c"
PROGRAMS = ("claude", "copilot", "pi")
SHELL_TOOL = {"claude": "Bash", "copilot": "bash", "pi": "bash"}


def settings(program: str, url: str) -> dict[str, Any]:
    if program == "claude":
        return {"model": "claude-stub", "base_url": url, "api_key": KEY,
                "allowed_tools": ["Bash"]}
    if program == "copilot":
        return {"model": "gpt-stub", "subprovider": "openai", "base_url": f"{url}/v1",
                "api_key": KEY, "api_format": "completions"}
    return {"model": "gpt-stub", "base_url": f"{url}/v1", "api_key": KEY}


PI_PRICES = {"input": 3.0, "output": 15.0, "cacheRead": 0.3, "cacheWrite": 3.75}  # $ per M


def priced_pi(url: str, home: Path) -> dict[str, Any]:
    """pi's own config folder (``PI_CODING_AGENT_DIR``, as a user keeps it) naming the loopback
    endpoint as provider ``stubpriced`` with a price per token, so pi reports a cost; the
    settings of a pi target that uses it (the key through ``STUBPRICED_API_KEY``). Set the
    variable to ``str(home)`` in agentv's environment."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "models.json").write_text(json.dumps({"providers": {"stubpriced": {
        "baseUrl": f"{url}/v1", "api": "openai-completions", "apiKey": "STUBPRICED_API_KEY",
        "models": [{"id": "gpt-stub", "cost": PI_PRICES}]}}}), encoding="utf-8")
    (home / "settings.json").write_text(json.dumps({"retry": {"enabled": False}}),
                                        encoding="utf-8")
    return {"subprovider": "stubpriced", "base_url": None}


def provider_class(program: str):
    from providers.agents.claude import ClaudeProvider
    from providers.agents.copilot import CopilotProvider
    from providers.agents.pi import PiProvider
    return {"claude": ClaudeProvider, "copilot": CopilotProvider, "pi": PiProvider}[program]


def build(program: str, url: str, tmp_path: Path, **extra: Any):
    cls = provider_class(program)
    target = Target(program, cls.kind, {"executable": real_tool(program),
                                        "log_dir": str(tmp_path / "logs"),
                                        **settings(program, url), **extra},
                    where="targets.yaml:3", base_dir=str(tmp_path))
    provider = cls(target)
    provider.check()
    return provider


def isolate(monkeypatch, tmp_path: Path, tmp_path_factory) -> None:
    monkeypatch.setenv("HOME", str(tmp_path_factory.getbasetemp() / "agent-home"))
    (tmp_path / "tmp").mkdir(exist_ok=True)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))


def left_in(folder: str | Path) -> list[str]:
    """Command lines of processes whose working directory is inside ``folder``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cwd = os.readlink(proc / "cwd")
            args = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if cwd == str(folder) or cwd.startswith(f"{folder}/"):
            found.append(args)
    return found
