"""Supervisor between agentv and every agent/judge process: nothing it started outlives it.

Run as ``python -I -S reaper.py COMMAND...`` (stdlib only, no agentv imports) by
``providers.process``. It makes itself a child subreaper (``PR_SET_CHILD_SUBREAPER``), so every
descendant that is orphaned — including ones that ``setsid`` out of the process group — is
re-parented to it and stays findable in ``/proc``; it asks the kernel for SIGTERM when agentv
dies (``PR_SET_PDEATHSIG``, so even ``kill -9`` of agentv is noticed), runs COMMAND with the
inherited stdin/stdout/stderr and waits for COMMAND's own exit. Then — or on SIGTERM, SIGINT,
SIGHUP, or agentv's death — it kills every remaining descendant (SIGTERM, a short grace,
SIGKILL) and exits with COMMAND's status, which closes the output pipes even when a
background child still holds them.

Exit status: COMMAND's (128+N when killed by signal N); 127 with a ``reaper: cannot run``
line on stderr when COMMAND cannot be started.
"""
from __future__ import annotations

import ctypes
import os
import _signal as signal  # the C module: `signal` imports enum (slow start)
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
GRACE_S = float(os.environ.get("AGENTV_KILL_GRACE_SECONDS", "2"))
EXEC_FAILED = 127
_libc = ctypes.CDLL(None, use_errno=True)


def prctl(option: int, value: int) -> None:
    _libc.prctl(option, value, 0, 0, 0)


def descendants(root: int) -> list[int]:
    """Every live process below ``root`` (parent links read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        if fields and fields[0] != b"Z":
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def reap() -> None:
    """Collect every exited child (orphans re-parented to us included)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def signal_all(sig: int) -> bool:
    pids = descendants(os.getpid())
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass
    return bool(pids)


def kill_tree(grace: float = GRACE_S) -> None:
    """SIGTERM to every descendant, SIGKILL to whatever is left after ``grace``."""
    if signal_all(signal.SIGTERM):
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            reap()
            if not descendants(os.getpid()):
                break
            time.sleep(0.02)
    for _ in range(50):  # children may fork while we kill: repeat until none is left
        if not signal_all(signal.SIGKILL):
            break
        time.sleep(0.01)
        reap()
    reap()


def _child_setup() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def start(argv: list[str]) -> int:
    try:
        pid = os.fork()
    except OSError as err:
        sys.stderr.write(f"reaper: cannot run {argv[0]}: {err.strerror}\n")
        os._exit(EXEC_FAILED)
    if pid == 0:
        try:
            _child_setup()
            os.execvp(argv[0], argv)
        except OSError as err:
            os.write(2, f"reaper: cannot run {argv[0]}: {err.strerror}\n".encode())
        os._exit(EXEC_FAILED)
    return pid


def main(argv: list[str]) -> int:
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    stopping: list[int] = []

    def stop(sig, _frame):
        stopping.append(sig)
        raise KeyboardInterrupt

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, stop)
    if os.getppid() == 1:  # agentv died before PDEATHSIG was armed
        return 128 + signal.SIGTERM
    status = 128 + signal.SIGTERM
    try:
        leader = start(argv)
        while True:
            pid, raw = os.waitpid(-1, 0)
            if pid == leader:
                status = os.waitstatus_to_exitcode(raw)
                status = 128 - status if status < 0 else status
                break
    except KeyboardInterrupt:
        status = 128 + (stopping[0] if stopping else signal.SIGTERM)
    except ChildProcessError:
        pass
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    kill_tree(GRACE_S if stopping else 0.0)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) if len(sys.argv) > 1 else 2)
