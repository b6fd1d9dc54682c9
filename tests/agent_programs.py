"""The real agent programs the agent tests drive (installed by .ci/install.d/35-agent-clis.sh,
found through ``tests.conftest.real_tool``), each pointed at the loopback model API of
``tests/fakes/agent_api_stub.py`` with a key that only its environment carries.

``build(program, url, tmp_path, **settings)`` makes the checked provider; ``isolate``
gives a test its own temporary folder (workspaces kept after a failed case land there, not
in /tmp) and a ``HOME`` shared by the test session (the programs write their config and
caches there: Copilot unpacks itself into ``~/.cache`` on its first run); ``left_in(path)``
lists processes still running in a folder (after a timeout there must be none);
``background_sleep`` / ``sleepers`` make and find a tool process that outlives its shell.
"""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import tempfile
import uuid
from pathlib import Path
from typing import Any

from agentv.providers.base import Target
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
    from agentv.providers.agents.claude import ClaudeProvider
    from agentv.providers.agents.copilot import CopilotProvider
    from agentv.providers.agents.pi import PiProvider
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


def background_sleep() -> tuple[str, str]:
    """(mark, command): a shell command leaving a ``sleep`` behind in its own session, and
    its arguments, which ``sleepers(mark)`` finds in ``ps`` (GNU sleep sums its arguments:
    ``sleep 300 0.<15 random digits>`` is a valid, unique command line)."""
    mark = f"300 0.{uuid.uuid4().int % 10**15:015d}"
    return mark, f"setsid sleep {mark} & sleep 0.2; exit 0"


def sleepers(mark: str) -> int:
    """How many ``sleep <mark>`` processes are running."""
    ps = subprocess.run(["ps", "-eww", "-o", "args"], capture_output=True, text=True).stdout
    return sum(1 for line in ps.splitlines() if line.strip() == f"sleep {mark}")


async def watching(coro, mark: str):
    """Run ``coro``, counting the ``sleep <mark>`` processes while it runs: (most seen at
    once, the finished task)."""
    task, seen = asyncio.ensure_future(coro), 0
    while not task.done():
        seen = max(seen, sleepers(mark))
        await asyncio.sleep(0.1)
    return seen, task


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
