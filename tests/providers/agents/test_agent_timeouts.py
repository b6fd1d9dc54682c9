"""A timeout kills the real program's whole process tree: Claude Code, Copilot CLI and pi
(pinned versions) each start a tool that leaves a ``sleep`` behind in its own session, then
hang on a model call; at the target's timeout the program and the sleep are gone. The three
run at once (each waits its whole timeout) against one loopback model API."""
from __future__ import annotations

import asyncio
import time

import pytest

from agentv.providers import secrets
from agentv.providers.base import ProviderTimeout, Request
from tests.agent_programs import (
    KEY,
    PROGRAMS,
    background_sleep,
    build,
    isolate,
    left_in,
    sleepers,
    watching,
)
from tests.fakes import agent_api_stub

pytestmark = pytest.mark.slow  # the real programs (docs/development.md: the fast subset)


async def _hang_until_timeout(program: str, url: str, folder) -> tuple[int, BaseException | None,
                                                                       str]:
    mark, command = background_sleep()
    # (a loaded machine takes pi or copilot up to ~10 s to reach its first model call)
    provider = build(program, url, folder, timeout_seconds=30)
    seen, task = await watching(provider.invoke(Request("c1", f"RUN: {command}\nHANG")), mark)
    return seen, task.exception(), mark


def test_timeout_kills_each_program_and_its_tools(tmp_path_factory, monkeypatch, tmp_path):
    isolate(monkeypatch, tmp_path, tmp_path_factory)
    secrets.add([KEY])
    url, server = agent_api_stub.start()
    try:
        folders = {p: tmp_path / p for p in PROGRAMS}
        for folder in folders.values():
            folder.mkdir()

        async def all_programs():
            return await asyncio.gather(*(_hang_until_timeout(p, url, folders[p])
                                          for p in PROGRAMS))
        outcomes = dict(zip(PROGRAMS, asyncio.run(all_programs())))
    finally:
        server.stop()
        secrets.clear()
    time.sleep(1)
    for program, (seen, error, mark) in outcomes.items():
        assert isinstance(error, ProviderTimeout), (program, error)
        assert seen == 1 and sleepers(mark) == 0, program  # the tool's sleep ran, and is gone
        assert left_in(error.details["workspace_path"]) == [], program
