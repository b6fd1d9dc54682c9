"""Run a subprocess in its own process group, with a timeout that leaves nothing behind.

On timeout the whole group gets SIGTERM, then SIGKILL after a short grace, so children
the command spawned die with it. Used by cli/codex/vscode targets and code judges.
"""
from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from providers.base import ProviderError
from providers.environment import child_env
from providers.secrets import tail

GRACE_S = 2.0
TAIL = 4000  # characters of stdout/stderr kept in a failed case's record
STREAM_LIMIT = 64 * 1024 * 1024  # longest stdout line read with ``on_stdout_line``


@dataclass
class ProcessResult:
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False

    def details(self, **extra: Any) -> dict[str, Any]:
        """Exit code and output tails, for a failed case's record."""
        return {"exit_code": self.returncode, "stdout": tail(self.stdout, TAIL),
                "stderr": tail(self.stderr, TAIL), **extra}

    def check_exit(self, what: str, **extra: Any) -> None:
        """Raise ``ProviderError`` (with details) when ``what`` exited non-zero."""
        if self.returncode == 0:
            return
        detail = tail(self.stderr.strip() or self.stdout.strip(), 500)
        raise ProviderError(f"{what} exited with code {self.returncode}"
                            + (f": {detail}" if detail else ""), details=self.details(**extra))


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
                      timeout: float | None = None,
                      on_stdout_line: Callable[[str], None] | None = None) -> ProcessResult:
    """``command`` as a string runs through ``/bin/sh -c``; as a list, directly (no shell).

    ``on_stdout_line`` is called with each stdout line as it arrives (event streams).
    Raises ``ProcessTimeout`` after killing the process group; ``FileNotFoundError`` when the
    executable does not exist."""
    kwargs = dict(cwd=cwd, env=child_env() if env is None else env, stdin=asyncio.subprocess.PIPE,
                  stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                  start_new_session=True, limit=STREAM_LIMIT)
    if isinstance(command, str):
        proc = await asyncio.create_subprocess_shell(command, **kwargs)
    else:
        proc = await asyncio.create_subprocess_exec(*command, **kwargs)
    data = stdin.encode() if stdin is not None else None
    try:
        out, err = await asyncio.wait_for(_communicate(proc, data, on_stdout_line), timeout)
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


async def _communicate(proc: asyncio.subprocess.Process, data: bytes | None,
                       on_line: Callable[[str], None] | None) -> tuple[bytes, bytes]:
    if on_line is None:
        return await proc.communicate(data)

    async def feed() -> None:
        try:
            if data is not None:
                proc.stdin.write(data)
                await proc.stdin.drain()
            proc.stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            pass

    async def read_stdout() -> bytes:
        chunks = []
        while line := await proc.stdout.readline():
            chunks.append(line)
            on_line(line.decode(errors="replace"))
        return b"".join(chunks)

    out, err, _ = await asyncio.gather(read_stdout(), proc.stderr.read(), feed())
    await proc.wait()
    return out, err


def run_process_sync(argv: Sequence[str], *, cwd: str | None = None,
                     env: dict[str, str] | None = None,
                     timeout: float | None = None) -> ProcessResult:
    """Blocking twin of ``run_process`` (list argv, no stdin) for preflight probes."""
    proc = subprocess.Popen(list(argv), cwd=cwd, env=child_env() if env is None else env,
                            stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise ProcessTimeout(timeout or 0) from None
    finally:
        _kill_group(proc.pid, signal.SIGKILL)
    return ProcessResult(proc.returncode, out.decode(errors="replace"),
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
