"""What a command template runs: past wrapper prefixes, which argument is a shell script and
which is an interpreter's code.

``timeout 30 env X=1 nice -n 1 bash -lc SCRIPT`` runs ``bash`` with SCRIPT as a shell script;
``python3 -c CODE`` runs CODE as Python. ``providers.process.template`` uses this to keep
placeholder values data: in a shell script they become environment variable references, in
an interpreter's code they are a configuration error.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

# wrapper -> (options that take a value, positional arguments before the command,
#             whether NAME=VALUE arguments may precede the command)
WRAPPERS: dict[str, tuple[frozenset[str], int, bool]] = {
    "timeout": (frozenset({"-s", "--signal", "-k", "--kill-after"}), 1, False),
    "env": (frozenset({"-u", "--unset", "-C", "--chdir"}), 0, True),
    "nice": (frozenset({"-n", "--adjustment"}), 0, False),
    "nohup": (frozenset(), 0, False),
    "stdbuf": (frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}), 0, False),
    "xargs": (frozenset({"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file",
                         "--delimiter", "--max-args", "--max-procs", "--max-chars",
                         "--max-lines", "--replace", "--eof"}), 0, False),
    "sudo": (frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-R", "-T", "-U", "--user",
                        "--group", "--host", "--prompt", "--chdir", "--chroot",
                        "--close-from", "--command-timeout", "--other-user"}), 0, True),
    "doas": (frozenset({"-u", "-C"}), 0, False),
    "setsid": (frozenset(), 0, False),
    "exec": (frozenset({"-a"}), 0, False),
    "command": (frozenset(), 0, False),
    "time": (frozenset({"-f", "-o", "--format", "--output"}), 0, False),
    "ionice": (frozenset({"-c", "-n", "--class", "--classdata"}), 0, False),
    "taskset": (frozenset(), 1, False),
    "chrt": (frozenset(), 1, False),
    "flock": (frozenset({"-w", "-E", "--timeout", "--conflict-exit-code"}), 1, False),
    "unbuffer": (frozenset(), 0, False),
}
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh"})
SHELL_VALUE_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
# interpreter name pattern -> (code options, what to use instead)
INTERPRETERS: list[tuple[re.Pattern[str], frozenset[str], str]] = [
    (re.compile(r"^(python|pypy)[0-9.]*$"), frozenset({"-c"}), "sys.argv / os.environ"),
    (re.compile(r"^(node|nodejs|bun|deno)$"), frozenset({"-e", "--eval", "-p", "--print"}),
     "process.argv / process.env"),
    (re.compile(r"^perl[0-9.]*$"), frozenset({"-e", "-E"}), "@ARGV / %ENV"),
    (re.compile(r"^ruby[0-9.]*$"), frozenset({"-e"}), "ARGV / ENV"),
    (re.compile(r"^php[0-9.]*$"), frozenset({"-r"}), "$argv / getenv()"),
    (re.compile(r"^(lua|luajit)[0-9.]*$"), frozenset({"-e"}), "arg / os.getenv()"),
    (re.compile(r"^(Rscript|osascript)$"), frozenset({"-e"}), "the command's arguments"),
    (re.compile(r"^(fish|pwsh|powershell|tclsh|expect)$"), frozenset({"-c"}),
     "the command's arguments"),
]
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# ssh joins every word after the destination into one line that the remote shell parses
SSH_VALUE_OPTIONS = frozenset("BbcDEeFIiJLlmOopQRSWw")
# runner -> options of ``RUNNER exec`` that take a value; the command after the container
# (kubectl: after ``--``) gets its argv verbatim, but not agentv's environment
CONTAINER_EXEC: dict[str, frozenset[str]] = {
    **dict.fromkeys(("docker", "podman", "nerdctl"), frozenset(
        {"-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "--detach-keys"})),
    "kubectl": frozenset({"-c", "--container", "-n", "--namespace", "--context", "-f",
                          "--filename", "--kubeconfig", "--pod-running-timeout"}),
}


@dataclass
class Shape:
    """``command``: index of the program actually run; ``script``: index of its shell script
    argument; ``code``: index of an interpreter's code argument (with a hint)."""

    command: int | None = None
    script: int | None = None
    code: int | None = None
    interpreter: str = ""
    hint: str = ""
    remote: int | None = None  # ssh: index of the destination; it and what follows go remote
    runner: str = ""  # "docker exec"…: the command runs in a container, without our env


def remote_command(words: list[str], cmd: int) -> int | None:
    """Index of the destination in ``ssh [options] DESTINATION [COMMAND...]``."""
    i = cmd + 1
    while i < len(words):
        word = words[i]
        if word == "--":
            i += 1
            break
        if not word.startswith("-") or len(word) < 2:
            break
        i += 2 if word[-1] in SSH_VALUE_OPTIONS and word[1:].isalnum() and (
            len(word) == 2 or word[1] not in SSH_VALUE_OPTIONS) else 1
    return i if i < len(words) else None


def container_command(words: list[str], cmd: int, valued: frozenset[str]) -> int | None:
    """Index of COMMAND in ``docker exec [options] CONTAINER COMMAND…`` (``kubectl exec POD
    [options] -- COMMAND…``)."""
    i, target = cmd + 2, False
    while i < len(words):
        word = words[i]
        if word == "--":
            return i + 1 if i + 1 < len(words) else None
        if word.startswith("-") and len(word) > 1:
            i += 2 if word in valued else 1
        elif target:
            return i
        else:
            target, i = True, i + 1
    return None


def command_index(words: list[str], start: int = 0) -> int | None:
    """Index of the program run once wrapper prefixes (``timeout 30``, ``env X=1``,
    ``nice -n 1``, ``sudo -u u``...) are skipped."""
    i = start
    while i < len(words):
        name = os.path.basename(words[i])
        if name not in WRAPPERS:
            return i
        valued, positional, assignments = WRAPPERS[name]
        i += 1
        while i < len(words):
            word = words[i]
            if word == "--":
                i += 1
                break
            if word.startswith("-") and len(word) > 1:
                i += 2 if word in valued else 1
            elif assignments and _ASSIGNMENT.match(word):
                i += 1
            elif positional:
                positional -= 1
                i += 1
            else:
                break
    return None


def shape(words: list[str], start: int = 0) -> Shape:
    cmd = command_index(words, start)
    if cmd is None:
        return Shape()
    name = os.path.basename(words[cmd])
    if name == "ssh":
        return Shape(command=cmd, remote=remote_command(words, cmd), runner="ssh")
    if name in CONTAINER_EXEC and words[cmd + 1:cmd + 2] == ["exec"]:
        inner = container_command(words, cmd, CONTAINER_EXEC[name])
        found = shape(words, inner) if inner is not None else Shape(command=cmd)
        found.runner = f"{name} exec"
        return found
    if name in SHELLS:
        return Shape(command=cmd, script=_shell_script(words, cmd))
    for pattern, flags, hint in INTERPRETERS:
        if pattern.match(name):
            code = _code_arg(words, cmd, flags)
            return Shape(command=cmd, code=code, interpreter=name, hint=hint)
    if name == "deno" and cmd + 2 < len(words) and words[cmd + 1] == "eval":
        return Shape(command=cmd, code=cmd + 2, interpreter=name, hint="Deno.args")
    return Shape(command=cmd)


def _shell_script(words: list[str], cmd: int) -> int | None:
    """Index of SCRIPT in ``<shell> [options] -c SCRIPT`` (``-lc``, ``-ec``, ``--login -c``)."""
    seen_c, i = False, cmd + 1
    while i < len(words):
        word = words[i]
        if word == "--":
            i += 1
            break
        if word in SHELL_VALUE_OPTIONS:
            i += 2
        elif word[:1] in "-+" and len(word) > 1:
            seen_c = seen_c or (not word.startswith("--") and "c" in word[1:])
            i += 1
        else:
            break
    return i if seen_c and i < len(words) else None


def _code_arg(words: list[str], cmd: int, flags: frozenset[str]) -> int | None:
    for i in range(cmd + 1, len(words)):
        word = words[i]
        if word in flags:
            return i + 1 if i + 1 < len(words) else None
        short = [f[1] for f in flags if len(f) == 2]
        if len(word) > 2 and word[0] == "-" and word[1] != "-":
            if word[-1] in short and word[1:].isalpha():  # -Sc CODE, -ne CODE
                return i + 1 if i + 1 < len(words) else None
            if word[1] in short:  # -cCODE
                return i
        if not word.startswith("-"):
            return None  # a script file: what follows are its arguments
    return None
