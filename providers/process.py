"""Run a subprocess in its own process group, with a timeout that leaves nothing behind.

On timeout the whole group gets SIGTERM, then SIGKILL after a short grace, so children
the command spawned die with it. Used by cli/codex/vscode targets and code judges.
"""
from __future__ import annotations

import asyncio
import os
import signal
from dataclasses import dataclass
from typing import Sequence

GRACE_S = 2.0


@dataclass
class ProcessResult:
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False


class ProcessTimeout(Exception):
    def __init__(self, timeout: float, stdout: str = "", stderr: str = ""):
        super().__init__(f"timed out after {timeout:g}s")
        self.timeout = timeout
        self.stdout = stdout
        self.stderr = stderr


def _kill_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


async def run_process(command: str | Sequence[str], *, cwd: str | None = None,
                      env: dict[str, str] | None = None, stdin: str | None = None,
                      timeout: float | None = None) -> ProcessResult:
    """``command`` as a string runs through ``/bin/sh -c``; as a list, directly (no shell).

    Raises ``ProcessTimeout`` after killing the process group; ``FileNotFoundError`` when the
    executable does not exist."""
    kwargs = dict(cwd=cwd, env=env, stdin=asyncio.subprocess.PIPE,
                  stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                  start_new_session=True)
    if isinstance(command, str):
        proc = await asyncio.create_subprocess_shell(command, **kwargs)
    else:
        proc = await asyncio.create_subprocess_exec(*command, **kwargs)
    data = stdin.encode() if stdin is not None else None
    try:
        out, err = await asyncio.wait_for(proc.communicate(data), timeout)
    except (asyncio.TimeoutError, asyncio.CancelledError) as exc:
        await _terminate(proc)
        if isinstance(exc, asyncio.CancelledError):
            raise
        raise ProcessTimeout(timeout or 0) from None
    finally:
        if proc.returncode is not None:
            _kill_group(proc.pid, signal.SIGKILL)  # stray children of a finished leader
    return ProcessResult(proc.returncode or 0, out.decode(errors="replace"),
                         err.decode(errors="replace"))


async def _terminate(proc: asyncio.subprocess.Process) -> None:
    _kill_group(proc.pid, signal.SIGTERM)
    try:
        await asyncio.wait_for(proc.wait(), GRACE_S)
    except asyncio.TimeoutError:
        pass
    _kill_group(proc.pid, signal.SIGKILL)
    try:
        await asyncio.wait_for(proc.wait(), GRACE_S)
    except asyncio.TimeoutError:
        pass
