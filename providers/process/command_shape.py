"""What each argument of a command template is to the program that gets it: data, a shell
script agentv can keep values out of, or something a program parses as code.

``roles(words)`` looks through wrapper prefixes (``timeout 30 env X=1 nice -n 1 …``) to the
program run and gives every word a ``Role``: ``data`` (a whole argument of a program agentv
does not know to interpret it, or an interpreter's arguments after its code or script),
``script`` (the script of ``sh -c``, where placeholders become ``"$AGENTV_*"`` references),
or ``refuse`` with the reason: the program name, a wrapper's or interpreter's options, an
interpreter's code or script file, anything a remote or privilege wrapper hands on. Placing a
placeholder is allowed only where the role says data (``providers.process.template``).
"""
from __future__ import annotations

import os

from agentv.providers.process.interpreter_args import interpreter_roles
from agentv.providers.process.programs import (
    CONTAINER_EXEC,
    INTERPRETERS,
    REMOTE,
    SHELL,
    SHELLS,
    WRAPPERS,
)
from agentv.providers.process.shape_types import DATA, Role, Shape, explain, is_assignment, refuse

_XARGS_REPLACE = frozenset({"-I", "-i", "--replace", "-J"})
__all__ = ["DATA", "Role", "Shape", "explain", "is_assignment", "roles"]


def roles(words: list[str]) -> Shape:
    found = Shape([Role("refuse", "the program run", "name the program in the template and "
                        "pass {P} as its own argument")] * len(words))
    _walk(words, 0, found)
    return found


def _walk(words: list[str], i: int, found: Shape) -> None:
    """Roles of ``words[i:]``, a command and its arguments."""
    if i >= len(words):
        return
    name = os.path.basename(words[i])
    found.command, found.program = i, name
    su_like = name == "runuser" and not _has_user(words[i:])  # runuser USER -c: as su
    if name in WRAPPERS and not su_like:
        _wrapper(words, i, name, found)
    elif name in REMOTE or su_like:
        remote = name in ("ssh", "autossh", "rsh", "mosh")
        refuse(found, i + 1, len(words), "inside " + REMOTE[name], _remote_fix(remote),
               remote=True)
    elif name in CONTAINER_EXEC and words[i + 1:i + 2] == ["exec"]:
        _container(words, i, name, found)
    elif name in SHELLS:
        interpreter_roles(words, i, name, SHELL, found)
    else:
        for pattern, spec in INTERPRETERS:
            if pattern.match(name):
                interpreter_roles(words, i, name, spec, found)
                return
        for j in range(i + 1, len(words)):
            found.roles[j] = DATA


def _has_user(words: list[str]) -> bool:
    return any(w in ("-u", "--user") or w.startswith(("--user=", "-u")) for w in words[1:])


def _remote_fix(remote: bool) -> str:
    if remote:
        return "drop it from the remote command"
    return ("run the program directly with {P} as its own argument, or read \"$AGENTV_PROMPT\" "
            "in a sh -c script")


def _wrapper(words: list[str], cmd: int, name: str, found: Shape) -> None:
    spec = WRAPPERS[name]
    why, fix = f"an option of {name}", "pass {P} as its own argument of the program run"
    positional, i = spec.positional, cmd + 1
    while i < len(words):
        word = words[i]
        opt = word.split("=", 1)[0]
        if word == "--":
            i += 1
            break
        if opt in spec.shell or (word[:1] == "-" and not word.startswith("--")
                                 and any(f"-{c}" in spec.shell for c in word[1:])):
            refuse(found, i, len(words), f"inside the command line {name} {opt} hands to a "
                    "shell, which parses it as code", f"drop {opt} and run the program as "
                    f"{name}'s own argument, or use \"$AGENTV_PROMPT\" in a sh -c script")
            return
        if word.startswith("-") and len(word) > 1:
            if opt in spec.valued and "=" not in word:
                refuse(found, i, i + 2, why, fix)
                i += 2
                continue
            attached = word[:2] in spec.valued and not word.startswith("--")
            if not (opt in spec.valued or opt in spec.flags or attached
                    or (name == "nice" and word[1:].isdigit())):
                refuse(found, i, len(words), f"after {name}'s option {opt}, which agentv does "
                        f"not know (it may take a value: agentv cannot tell what {name} runs)",
                        f"drop {opt} or move {{P}} out of this command")
                return
        elif spec.assignments and is_assignment(word):
            found.roles[i] = DATA
            i += 1
            continue
        elif positional:
            positional -= 1
        else:
            break
        found.roles[i] = Role("refuse", why, fix)
        i += 1
    sub = Shape(found.roles)
    _walk(words, i, sub)
    found.command, found.program, found.stdin_code = sub.command, sub.program, sub.stdin_code
    if name == "xargs" and any(w.split("=")[0] in _XARGS_REPLACE or w.startswith("-I")
                               for w in words[cmd + 1:i]):
        found.stdin_code = f"xargs -I, which writes its input into {sub.program}'s command line"
    found.env_kept = spec.env_kept and sub.env_kept
    found.runner = sub.runner or ("" if spec.env_kept else name)
    _no_env(found, words)


def _no_env(found: Shape, words: list[str]) -> None:
    """A script run where agentv's variables do not reach cannot reference them."""
    script = found.script
    if not found.env_kept and script is not None:
        found.roles[script] = Role(
            "refuse", f"a shell script run by {found.runner}, where agentv's $AGENTV_* "
            "variables do not reach", "pass it as an argument after the script (sh -c '… "
            "\"$1\"' sh {P})", remote=True)


def _container(words: list[str], cmd: int, name: str, found: Shape) -> None:
    valued, i, target = CONTAINER_EXEC[name], cmd + 2, False
    why = f"an option of {name} exec"
    while i < len(words):
        word = words[i]
        if word == "--":
            i += 1
            break
        if word.startswith("-") and len(word) > 1:
            step = 2 if word in valued else 1
            refuse(found, i, i + step, why, "pass {P} as its own argument of the program run")
            i += step
        elif target:
            break
        else:
            target, i = True, i + 1
    sub = Shape(found.roles)
    _walk(words, i, sub)
    found.command, found.program, found.stdin_code = sub.command, sub.program, sub.stdin_code
    found.env_kept, found.runner = False, f"{name} exec"
    _no_env(found, words)
