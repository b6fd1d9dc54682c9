"""Run an agent or code-judge process so that nothing it starts outlives it.

Every command runs under ``providers/process/reaper.py`` (a stdlib-only supervisor in its own
session): a child subreaper that also notices when agentv dies, even by ``kill -9``.
Whatever the command forks — background children, ``setsid`` daemons, codex's tool
processes — is killed when the command exits, when it times out, when the run is
cancelled (Ctrl-C) and when agentv itself is terminated or killed. Output is read until the
command's own exit, not until every inherited pipe is closed.

stdin is ``/dev/null`` unless text is given, which is written and then closed: tools that
read stdin when it is not a terminal (``llm``, ``cat``, many agent CLIs) never wait on it.
Used by the cli/codex/vscode targets, their healthchecks and code judges; every command
runs in the OS sandbox its ``Profile`` describes (``providers.process.sandbox``), its
``overlay`` folders copied for the spawn and removed after it (``providers.process.overlay``).
"""
from __future__ import annotations

import asyncio
import errno
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agentv.providers.base import ProviderError
from agentv.providers.process import overlay
from agentv.providers.process import sandbox as os_sandbox
from agentv.providers.process.environment import child_env
from agentv.providers.process.sandbox import Profile
from agentv.providers.secrets import tail

GRACE_S = 2.0  # between SIGTERM and SIGKILL of a process tree
TAIL = 4000  # characters of stdout/stderr kept in a failed case's record
STREAM_LIMIT = 64 * 1024 * 1024  # longest stdout line read with ``on_stdout_line``
REAPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reaper.py")
_EXEC_FAILED = "reaper: cannot run "


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


def supervised(command: str | Sequence[str], cwd: str | None,
               env: dict[str, str] | None, profile: Profile | None = None) -> list[str]:
    """The argv that runs ``command`` in its sandbox (``profile``: ``providers.process.
    sandbox``; None: the strictest, a grader's) under the reaper. A string runs through
    ``/bin/sh -c``; a missing executable raises ``FileNotFoundError`` here, as a direct spawn
    would."""
    argv = ["/bin/sh", "-c", command] if isinstance(command, str) else [str(a) for a in command]
    if not argv:
        raise FileNotFoundError(errno.ENOENT, "empty command", "")
    exe = argv[0]
    if "/" in exe:
        path = os.path.join(cwd or ".", exe)
        if not os.path.isfile(path):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), exe)
        if not os.access(path, os.X_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), exe)
    elif shutil.which(exe, path=(env if env is not None else os.environ).get("PATH")) is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), exe)
    argv = os_sandbox.wrap(argv, cwd, env if env is not None else dict(os.environ), profile)
    return [sys.executable, "-I", "-S", REAPER, f"--parent={os.getpid()}", *argv]


def _result(code: int, out: bytes, err: bytes) -> ProcessResult:
    stderr = err.decode(errors="replace")
    if code == 127 and stderr.startswith(_EXEC_FAILED):
        reason = stderr.splitlines()[0][len(_EXEC_FAILED):]
        raise OSError(errno.ENOEXEC, reason.partition(": ")[2] or reason)
    return ProcessResult(code, out.decode(errors="replace"), stderr)


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


async def run_process(command: str | Sequence[str], *, cwd: str | None = None,
                      env: dict[str, str] | None = None, stdin: str | None = None,
                      timeout: float | None = None,
                      on_stdout_line: Callable[[str], None] | None = None,
                      sandbox: Profile | None = None) -> ProcessResult:
    """Run ``command`` (a string: through ``/bin/sh -c``; a list: directly, no shell).

    ``on_stdout_line`` is called with each stdout line as it arrives (event streams);
    ``sandbox`` is the spawn's profile (None: a grader's — no network, nothing writable).
    Raises ``ProcessTimeout`` after killing the whole process tree; ``FileNotFoundError`` /
    ``OSError`` when the executable cannot be run."""
    env = child_env() if env is None else env
    sandbox, scratch = (await asyncio.to_thread(overlay.prepare, sandbox)
                        if sandbox and sandbox.overlay and os_sandbox.active(sandbox)
                        else (sandbox, None))
    try:
        return await _run(command, cwd, env, stdin, timeout, on_stdout_line, sandbox)
    finally:
        if scratch:
            await asyncio.to_thread(overlay.discard, scratch)


async def _run(command: str | Sequence[str], cwd: str | None, env: dict[str, str],
               stdin: str | None, timeout: float | None,
               on_stdout_line: Callable[[str], None] | None,
               sandbox: Profile | None) -> ProcessResult:
    proc = await asyncio.create_subprocess_exec(
        *supervised(command, cwd, env, sandbox), cwd=cwd, env=env,
        stdin=asyncio.subprocess.DEVNULL if stdin is None else asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        start_new_session=True, limit=STREAM_LIMIT)
    data = stdin.encode() if stdin is not None else None
    try:
        out, err = await asyncio.wait_for(_communicate(proc, data, on_stdout_line), timeout)
    except (TimeoutError, asyncio.CancelledError) as exc:
        await _terminate(proc)
        if isinstance(exc, asyncio.CancelledError):
            raise
        raise ProcessTimeout(timeout or 0) from None
    return _result(proc.returncode or 0, out, err)


async def _communicate(proc: asyncio.subprocess.Process, data: bytes | None,
                       on_line: Callable[[str], None] | None) -> tuple[bytes, bytes]:
    async def feed() -> None:
        if proc.stdin is None:
            return
        try:
            if data:
                proc.stdin.write(data)
                await proc.stdin.drain()
            proc.stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            pass

    assert proc.stdout is not None and proc.stderr is not None  # both are pipes

    async def read_stdout() -> bytes:
        assert proc.stdout is not None
        if on_line is None:
            return await proc.stdout.read()
        chunks = []
        while line := await proc.stdout.readline():
            chunks.append(line)
            on_line(line.decode(errors="replace"))
        return b"".join(chunks)

    out, err, _ = await asyncio.gather(read_stdout(), proc.stderr.read(), feed())
    await proc.wait()
    return out, err


async def _terminate(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM to the reaper (it takes the tree down); SIGKILL if it does not exit."""
    _signal(proc.pid, signal.SIGTERM)
    try:
        await asyncio.wait_for(asyncio.shield(proc.wait()), GRACE_S + 3)
    except TimeoutError:
        _signal(proc.pid, signal.SIGKILL)
    _kill_group(proc.pid, signal.SIGKILL)  # backstop for anything left in its group
    try:
        await asyncio.wait_for(asyncio.shield(proc.wait()), GRACE_S)
    except TimeoutError:
        pass


def run_process_sync(argv: Sequence[str], *, cwd: str | None = None,
                     env: dict[str, str] | None = None,
                     timeout: float | None = None,
                     sandbox: Profile | None = None) -> ProcessResult:
    """Blocking twin of ``run_process`` (list argv, stdin /dev/null) for preflight probes."""
    env = child_env() if env is None else env
    sandbox, scratch = (overlay.prepare(sandbox) if os_sandbox.active(sandbox)
                        else (sandbox, None))
    try:
        return _run_sync(argv, cwd, env, timeout, sandbox)
    finally:
        overlay.discard(scratch)


def _run_sync(argv: Sequence[str], cwd: str | None, env: dict[str, str],
              timeout: float | None, sandbox: Profile | None) -> ProcessResult:
    proc = subprocess.Popen(supervised(argv, cwd, env, sandbox), cwd=cwd, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.terminate()
        try:
            proc.communicate(timeout=GRACE_S + 3)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
        _kill_group(proc.pid, signal.SIGKILL)
        raise ProcessTimeout(timeout or 0) from None
    return _result(proc.returncode, out, err)
