"""Placeholders inside a shell script argument (``sh -c '... {PROMPT} ...'``) become
environment variable references, so the shell never parses a value as code.

The script is scanned with the shell's quoting rules; each placeholder is replaced by a
reference that is correct where it stands: ``"${AGENTV_PROMPT}"`` unquoted,
``${AGENTV_PROMPT}`` inside double quotes, ``'"${AGENTV_PROMPT}"'`` inside single quotes. A
shell expands such a reference into exactly the value and never re-parses it. A placeholder
that a command inside the script would parse again — an interpreter's code argument
(``python3 -c "..."``), a nested shell script, ``eval`` — is a configuration error.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from providers.process.command_shape import shape

_SEPARATORS = set(";|&\n()")


class UnsafePlaceholder(ValueError):
    pass


def env_name(placeholder: str, index: int | None = None, field: str = "path") -> str:
    """``PROMPT`` → ``AGENTV_PROMPT``; file ``index`` 1 of FILES → ``AGENTV_FILES_1``
    (``AGENTV_FILES_1_BASENAME`` for its basename)."""
    name = f"AGENTV_{placeholder}"
    if index is not None:
        name += f"_{index}" + ("_BASENAME" if field == "basename" else "")
    return name


def reference(var: str, state: str) -> str:
    """A reference to ``$var`` that expands to exactly its value in quoting ``state``
    (``u`` unquoted, ``d`` double quotes, ``s`` single quotes)."""
    return {"u": f'"${{{var}}}"', "d": f"${{{var}}}", "s": f"'\"${{{var}}}\"'"}[state]


def requote(unquoted_text: str, state: str) -> str:
    """Text written for an unquoted position, placed where ``state`` quoting is open."""
    return {"u": unquoted_text, "d": f'"{unquoted_text}"', "s": f"'{unquoted_text}'"}[state]


def render_script(script: str, pattern: re.Pattern[str],
                  substitute: Callable[[str, str], str]) -> str:
    """``script`` with every ``pattern`` match (group 1: the placeholder name) replaced by
    ``substitute(name, quoting_state)``. Raises UnsafePlaceholder for placeholders that a
    command in the script would parse again."""
    out: list[str] = []
    stack = ["u"]  # quoting states; "u(" / "u`" open command substitutions
    words: list[str] = []
    word: list[str] = []
    i, n = 0, len(script)
    while i < n:
        state = stack[-1][0]
        m = pattern.match(script, i)
        if m:
            _check(m.group(1), words)
            out.append(substitute(m.group(1), state))
            word.append("\0")
            i = m.end()
            continue
        c = script[i]
        step = 1
        if state == "s":
            if c == "'":
                stack.pop()
            else:
                word.append(c)
        elif c == "\\" and i + 1 < n:
            step = 2
            word.append(script[i + 1])
        elif script.startswith("$(", i) and not script.startswith("$((", i):
            stack.append("u(")
            words, word, step = [], [], 2
        elif c == "`":
            if stack[-1] == "u`":
                stack.pop()
            else:
                stack.append("u`")
                words, word = [], []
        elif state == "d":
            if c == '"':
                stack.pop()
            else:
                word.append(c)
        elif c == "'":
            stack.append("s")
        elif c == '"':
            stack.append("d")
        elif c == ")" and stack[-1] == "u(":
            stack.pop()
            words, word = [], []
        elif c in _SEPARATORS:
            words, word = [], []
        elif c.isspace():
            if word:
                words.append("".join(word))
            word = []
        else:
            word.append(c)
        out.append(script[i:i + step])
        i += step
    return "".join(out)


def _check(name: str, words: list[str]) -> None:
    """The word holding the placeholder is ``words[len(words)]`` of its simple command."""
    probe = [*words, "\0"]
    found = shape(probe)
    here = len(words)
    if found.code == here:
        raise UnsafePlaceholder(
            f"{{{name}}} sits in {found.interpreter}'s code inside the shell script, where it "
            f"would run as code; pass it as an argument after the code, or read "
            f"${env_name(name)} from the environment ({found.hint})")
    if found.script == here:
        raise UnsafePlaceholder(
            f"{{{name}}} sits in a nested shell script, which would parse it as code; "
            f"reference \"${env_name(name)}\" in the inner script instead")
    if found.remote is not None and found.remote <= here:
        raise UnsafePlaceholder(
            f"{{{name}}} is part of ssh's remote command, which the remote shell parses as "
            "code" + ("; send the prompt on stdin (prompt_via: stdin)" if name == "PROMPT"
                      else ""))
    if found.command is not None and found.command < here and words[found.command] == "eval":
        raise UnsafePlaceholder(f"{{{name}}} is an argument of eval, which would run it as "
                                f"code; use \"${env_name(name)}\" without eval")
