"""Supervisor between agentv and every agent/judge process: nothing it started outlives it.

Run as ``python -I -S reaper.py --parent=PID COMMAND...`` (stdlib only, no agentv imports)
by ``providers.process.supervision``. It makes itself a child subreaper
(``PR_SET_CHILD_SUBREAPER``), so
every descendant that is orphaned — including ones that ``setsid`` out of the process group —
is re-parented to it and stays findable in ``/proc``; it runs COMMAND with the inherited
stdin/stdout/stderr and waits for COMMAND's own exit. Then — or on SIGTERM, SIGINT, SIGHUP, or
agentv's death — it kills every remaining descendant (SIGTERM, a short grace, SIGKILL) and
exits with COMMAND's status, which closes the output pipes even when a background child still
holds them.

agentv's death (even by ``kill -9``) is noticed through ``PR_SET_PDEATHSIG``. The kernel sends
that signal when the *thread* that started the reaper exits, and again at every later hop while
a dying multi-threaded agentv hands its children from thread to thread; so it is SIGUSR1, not a
stop signal, and it only counts when the parent process (PID) is really gone. Every signal is
blocked and taken synchronously with ``sigtimedwait``: a burst of signals cannot interrupt the
final sweep (a handler raising in the middle of it once left a forker's children alive).

Exit status: COMMAND's (128+N when stopped by signal N); 127 with a ``reaper: cannot run``
line on stderr when COMMAND cannot be started.
"""
from __future__ import annotations

import _signal as signal  # the C module: `signal` imports enum (slow start)
import ctypes
import os
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
GRACE_S = float(os.environ.get("AGENTV_KILL_GRACE_SECONDS", "2"))
EXEC_FAILED = 127
POLL_S = 1.0  # the parent is also checked this often, should its death signal be lost
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
PARENT_DIED = signal.SIGUSR1
WAITED = {signal.SIGCHLD, PARENT_DIED, *STOP_SIGNALS}
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
    quiet = 0  # children may fork (or be re-parented to us) while we kill: repeat until two
    for _ in range(100):  # sweeps in a row find nobody
        quiet = 0 if signal_all(signal.SIGKILL) else quiet + 1
        if quiet == 2:
            break
        time.sleep(0.01)
        reap()
    reap()


def _child_setup() -> None:
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):  # ignored by Python's startup, not the agent's
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, ())
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


def leader_status(leader: int) -> int | None:
    """Reap every exited child; COMMAND's exit status once it has exited."""
    while True:
        try:
            pid, raw = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return 128 + signal.SIGKILL  # cannot happen: COMMAND is ours until reaped
        if pid == 0:
            return None
        if pid == leader:
            status = os.waitstatus_to_exitcode(raw)
            return 128 - status if status < 0 else status


def supervise(leader: int, parent: int) -> tuple[int, bool]:
    """Wait for COMMAND's exit or a stop; (exit status, stopped by a signal)."""
    while (status := leader_status(leader)) is None:
        info = signal.sigtimedwait(WAITED, POLL_S)
        signo = info.si_signo if info is not None else PARENT_DIED
        if signo in STOP_SIGNALS:
            return 128 + signo, True
        if signo == PARENT_DIED and os.getppid() != parent:  # not just one of its threads
            return 128 + signal.SIGTERM, True
    return status, False


def parse(args: list[str]) -> tuple[int, list[str]]:
    if args and args[0].startswith("--parent="):
        return int(args[0].partition("=")[2]), args[1:]
    return os.getppid(), args


def main(args: list[str]) -> int:
    signal.pthread_sigmask(signal.SIG_BLOCK, WAITED)  # from now on every signal is waited for
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    prctl(PR_SET_PDEATHSIG, PARENT_DIED)
    parent, argv = parse(args)
    if not argv:
        return 2
    if os.getppid() != parent:  # agentv died before PDEATHSIG was armed
        return 128 + signal.SIGTERM
    status, stopped = supervise(start(argv), parent)
    kill_tree(GRACE_S if stopped else 0.0)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
