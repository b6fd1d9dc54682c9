"""The OS sandbox every process agentv starts for a case runs in (bubblewrap on Linux).

A ``Profile`` says what one spawn may see, by kind — ``target`` (a ``cli`` command),
``agent`` (codex, claude, copilot, pi, subagent), ``grader`` (code judges, code-graders,
custom assertion scripts, aggregators), ``hook`` (workspace setup, its git checkouts) and
``healthcheck`` — and ``wrap`` turns it into the ``bwrap`` argv put in front of the command
(inside the reaper: ``providers.process.supervision``; the reaper stays the second line):

- the file system read-only (``--ro-bind / /``); the home folders, ``/root``, ``/tmp`` and
  ``/var/tmp`` hidden under fresh empty tmpfs — SSH keys, cloud credentials, other suites and
  other runs' files vanish, and ``$HOME`` is a private throwaway home; then the suite roots
  and the folders the user allowed (``configure``), the command's ``cwd``, its program and
  ``PATH`` folders seen again read-only; only the case's scratch (its workspace, its output
  folder) writable;
- a target's working folder (``Profile.overlay``) seen through a throwaway copy bound at its
  own path (``providers.process.overlay``): writes beside the suite land in the copy;
- ``--unshare-pid``, ``--die-with-parent``, ``--new-session``, every capability dropped;
- the network by kind (``NETWORKS``): ``none`` is a network namespace of its own (only the
  sandbox's own ``lo``: nothing on the host, loopback listeners included, is reachable);
  ``full`` shares the host's; ``loopback`` is accepted and shares the host's too — bwrap
  cannot filter by address, so it is the documented intent (a loopback stub), not enforced.
  Graders and hooks default to ``none``, targets and agents to ``full``.

The environment is the caller's allow-list (``providers.process.environment.child_env``),
never the parent's whole environment. ``configure(enabled=False)`` (``--no-sandbox``) and a
target's ``sandbox: off`` run the command unwrapped; ``require()`` is the run's preflight.
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from agentv.providers.errors import ConfigError

KINDS = ("target", "agent", "grader", "hook", "healthcheck")
NETWORKS = ("none", "loopback", "full")
DEFAULT_NETWORK = {"target": "full", "agent": "full", "grader": "none", "hook": "none",
                   "healthcheck": "full"}
HIDDEN = ("/root", "/home", "/tmp", "/var/tmp", "/run/user")
TEMP_VARS = ("TMPDIR", "TMP", "TEMP")  # inside: the sandbox's private /tmp
NOT_INSTALLED = ("bubblewrap (bwrap) is not installed: apt-get install bubblewrap, "
                 "or run with --no-sandbox")


@dataclass(frozen=True)
class Profile:
    """What one spawn may reach: ``writable`` (its scratch), ``readable`` beyond the run's
    roots, its ``network`` (None: the kind's default); ``enabled=False``: ``sandbox: off``."""
    kind: str = "grader"
    network: str | None = None
    writable: tuple[str, ...] = ()
    readable: tuple[str, ...] = ()
    enabled: bool = True
    overlay: tuple[str, ...] = ()  # seen through a throwaway copy (providers.process.overlay)
    copies: tuple[tuple[str, str], ...] = ()  # (copy, original) made for one spawn

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown sandbox kind {self.kind!r}")
        if self.network is not None and self.network not in NETWORKS:
            raise ValueError(f"unknown network {self.network!r}")

    @property
    def net(self) -> str:
        return self.network or DEFAULT_NETWORK[self.kind]


@dataclass
class RunSandbox:
    """Run-wide: on or off (``--no-sandbox``), the suite roots and allowed folders."""
    enabled: bool = True
    readable: tuple[str, ...] = ()
    allowed: list[str] = field(default_factory=list)  # what the run let through (summary)


_RUN = RunSandbox()
_CHECKED: dict[str, str | None] = {}


def target_profile(setting, where: str, kind: str, writable=(), readable=(),
                   overlay=()) -> Profile:
    """A target's profile from its settings ``network`` (``none|loopback|full``) and
    ``sandbox`` (``on|off``); a bad value is a ``ConfigError``."""
    network = setting("network")
    if network is not None and network not in NETWORKS:
        raise ConfigError(f"must be one of {', '.join(NETWORKS)}, got {network!r}", where,
                          "network")
    switch = setting("sandbox")
    if switch not in (None, True, False, "on", "off"):
        raise ConfigError(f"must be on or off, got {switch!r}", where, "sandbox")
    return Profile(kind, network, tuple(map(str, writable)), tuple(map(str, readable)),
                   enabled=switch not in (False, "off"), overlay=tuple(map(str, overlay)))


def grader_profile(command: str | Sequence[str], cwd: str | None,
                   readable: Iterable[str] = ()) -> Profile:
    """A grader's sandbox (no network, nothing writable): the folders of the script files its
    command names (the suite's own, boundary-checked — never case text) seen read-only."""
    words = shlex.split(command) if isinstance(command, str) else [str(w) for w in command]
    files = [os.path.join(cwd or ".", w) for w in words if w and not w.startswith("-")]
    dirs = [os.path.dirname(os.path.abspath(f)) for f in files if os.path.isfile(f)]
    return Profile("grader", readable=tuple(dict.fromkeys([*dirs, *readable])))


def configure(enabled: bool = True, readable: Iterable[str | Path] = ()) -> None:
    """The run's setting: ``enabled`` (False: ``--no-sandbox``) and the folders every
    sandbox sees read-only (the suites' roots, ``--allow-path``, ``allowed_paths``)."""
    _RUN.enabled = enabled
    _RUN.readable = tuple(dict.fromkeys(str(Path(p).resolve()) for p in readable))


def enabled() -> bool:
    return _RUN.enabled


def run_readable() -> tuple[str, ...]:
    return _RUN.readable


def bwrap_path() -> str | None:
    """bwrap on PATH (or /usr/bin); ``$AGENTV_BWRAP`` names another (tests: a missing one)."""
    named = os.environ.get("AGENTV_BWRAP")
    if named:
        return named if os.access(named, os.X_OK) else None
    return shutil.which("bwrap") or shutil.which("bwrap", path="/usr/bin:/bin")


def require() -> None:
    """The run's preflight: bwrap is there and can make a sandbox (``ConfigError``, exit 2,
    naming the fix, before any case runs). Nothing when the sandbox is off."""
    if not _RUN.enabled:
        return
    problem = probe()
    if problem:
        raise ConfigError(problem, None, "sandbox")


def probe() -> str | None:
    """None when bwrap works here, else why not (the message names the fix)."""
    exe = bwrap_path()
    if exe is None:
        return NOT_INSTALLED
    if exe not in _CHECKED:
        try:
            done = subprocess.run([exe, "--ro-bind", "/", "/", "--unshare-pid", "--unshare-net",
                                   "--die-with-parent", "true"], capture_output=True,
                                  timeout=20, stdin=subprocess.DEVNULL)
            why = done.stderr.decode(errors="replace").strip()[:200] if done.returncode else ""
        except (OSError, subprocess.TimeoutExpired) as err:
            why = str(err)
        _CHECKED[exe] = (f"bubblewrap (bwrap) cannot make a sandbox here ({why}): enable "
                         "unprivileged user namespaces, or run with --no-sandbox") if why else None
    return _CHECKED[exe]


def active(profile: Profile | None) -> bool:
    return _RUN.enabled and (profile is None or profile.enabled)


def wrap(argv: list[str], cwd: str | None, env: dict[str, str],
         profile: Profile | None) -> list[str]:
    """``argv`` inside the sandbox ``profile`` describes (unchanged when it is off)."""
    if not active(profile):
        return argv
    profile = profile or Profile()
    exe = bwrap_path()
    if exe is None:
        raise FileNotFoundError(2, NOT_INSTALLED, "bwrap")
    return [exe, *options(argv, cwd, env, profile), "--", *argv]


def options(argv: list[str], cwd: str | None, env: dict[str, str],
            profile: Profile) -> list[str]:
    """The bwrap options (see the module docstring); pure, for tests and ``--dry-run``."""
    opts = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    home = env.get("HOME") or os.environ.get("HOME") or ""
    for folder in _outermost([*HIDDEN, home]):
        if os.path.isdir(folder):
            opts += ["--tmpfs", folder]
    workdir = os.path.abspath(cwd or os.getcwd())
    writable = _existing(profile.writable)
    readable = [p for p in _existing([*_RUN.readable, *profile.readable, workdir,
                                      *_program_dirs(argv, cwd, env)])
                if not any(_inside(p, w) for w in writable)]
    for path in sorted(set(readable), key=len):
        opts += ["--ro-bind", path, path]
    for copy, original in profile.copies:
        opts += ["--bind", copy, original]
    for path in sorted(set(writable), key=len):
        opts += ["--bind", path, path]
    for name in TEMP_VARS:  # a temp folder the sandbox hides or makes read-only: its own
        if env.get(name) and not any(_inside(os.path.abspath(env[name]), w) for w in writable):
            opts += ["--setenv", name, "/tmp"]
    if profile.net == "none":
        opts.append("--unshare-net")
    opts += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
             "--new-session", "--cap-drop", "ALL", "--chdir", workdir]
    return opts


def describe(profile: Profile | None) -> str:
    """One line for logs and the run summary: what this sandbox allows."""
    if not active(profile):
        return "no sandbox (sandbox: off / --no-sandbox)"
    profile = profile or Profile()
    return (f"{profile.kind}: network {profile.net}; writable "
            f"{', '.join(profile.writable) or 'private /tmp only'}")


def _program_dirs(argv: list[str], cwd: str | None, env: dict[str, str]) -> list[str]:
    """The program's folder and the ``PATH`` folders (the venv's too), seen again when they
    lie under a hidden folder — the command must still start."""
    dirs = [os.path.dirname(sys.executable), sys.prefix, sys.base_prefix]
    for entry in env.get("PATH", "").split(os.pathsep):
        if os.path.isabs(entry):  # ~/.pyenv/shims runs ~/.pyenv/libexec: the whole ~/.pyenv
            shims = os.path.basename(entry.rstrip("/")) == "shims"
            dirs.append(os.path.dirname(entry.rstrip("/")) if shims else entry)
    exe = _program_path(argv, cwd, env)
    if exe:
        dirs += [_installation(os.path.dirname(os.path.abspath(exe))),
                 _installation(os.path.dirname(os.path.realpath(exe)))]
    return [d for d in dirs if any(_inside(d, h) for h in (*HIDDEN, env.get("HOME", "")) if h)]


def _program_path(argv: list[str], cwd: str | None, env: dict[str, str]) -> str | None:
    if not argv:
        return None
    if "/" in argv[0]:
        return os.path.join(cwd or ".", argv[0])
    return shutil.which(argv[0], path=env.get("PATH", os.defpath))


def _installation(folder: str) -> str:
    """The installation a program's folder belongs to, seen whole: an npm package's outermost
    ``node_modules`` (Codex and Claude Code run a binary from a sibling platform package), or
    the venv / npm prefix whose ``bin`` it is (its ``lib`` holds the code); else the folder."""
    head, marker, _ = folder.partition("/node_modules/")
    if marker:
        return head + "/node_modules"
    prefix = os.path.dirname(folder)
    if os.path.basename(folder) == "bin" and (
            os.path.isfile(os.path.join(prefix, "pyvenv.cfg"))
            or os.path.isdir(os.path.join(prefix, "lib", "node_modules"))):
        return prefix
    return folder


def _existing(paths) -> list[str]:
    out = []
    for p in paths:
        if p and os.path.exists(p):
            out.append(os.path.abspath(p))
    return out


def _inside(path: str, folder: str) -> bool:
    return bool(folder) and (path == folder or path.startswith(folder.rstrip("/") + "/"))


def _outermost(folders: list[str]) -> list[str]:
    """Each folder once, none inside another."""
    keep: list[str] = []
    for f in sorted({os.path.abspath(f) for f in folders if f}, key=len):
        if f != "/" and not any(_inside(f, k) for k in keep):
            keep.append(f)
    return keep
