"""Placeholders inside a shell script argument (``sh -c '... {PROMPT} ...'``) become
environment variable references, so the shell never parses a value as code.

The script is scanned with the shell's quoting rules; each placeholder is replaced by a
reference that is correct where it stands: ``"${AGENTV_PROMPT}"`` unquoted,
``${AGENTV_PROMPT}`` inside double quotes, ``'"${AGENTV_PROMPT}"'`` inside single quotes. A
shell expands such a reference into exactly the value and never re-parses it. Each simple
command of the script is then held to the same rules as the template itself
(``providers.process.command_shape``): a placeholder (or a command substitution holding one)
must be a whole word where the command takes data. Inside ``${…}``, ``$((…))``, ``[[ … ]]``,
a here-document, a nested script, an interpreter's code, ``eval``/``trap``/``source`` or a
pipe into a program that reads code from stdin, it is a configuration error.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from agentv.providers.process.command_shape import Role, explain, is_assignment, roles
from agentv.providers.process.programs import DATA_PROGRAMS, SHELL_DECLARERS, SHELL_EVALUATORS

MARK = "\0"
_SEPARATORS = set(";|&\n()")
_REDIRECT = re.compile(r"^[0-9]*(<<?<?|>>?|<>|>&|<&|&>>?|>\|)")
_KEYWORDS = frozenset({"!", "{", "}", "then", "do", "else", "elif", "if", "while", "until",
                       "time", "coproc", "fi", "done", "esac"})
_VARIABLE = re.compile(r"\$(\{)?([A-Za-z_][A-Za-z0-9_]*|[0-9@*])(\})?")
_WHOLE = re.compile(r"(--?[A-Za-z][\w.-]*=|[A-Za-z_]\w*=)?" + MARK)


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


def is_whole(word: str) -> bool:
    """A placeholder standing as a whole argument (``{P}``, ``--opt={P}``, ``NAME={P}``)."""
    return bool(_WHOLE.fullmatch(word))


@dataclass
class _Frame:
    """One command context: the script itself or a ``$(…)``/backtick inside it."""

    words: list[str] = field(default_factory=list)
    word: list[str] = field(default_factory=list)
    held: str = ""  # a placeholder seen in the current simple command
    piped: str = ""  # a placeholder reaches this command's stdin through a pipe
    tainted: str = ""  # a placeholder anywhere in this frame


@dataclass
class _Scan:
    checked: Callable[[str], bool]
    frames: list[_Frame] = field(default_factory=lambda: [_Frame()])
    heredoc: bool = False
    stdin_code: str = ""  # a command of the script reads code from the script's stdin
    tainted: dict[str, str] = field(default_factory=dict)  # variable -> placeholder it holds


def render_script(script: str, pattern: re.Pattern[str],
                  substitute: Callable[[str, str], str],
                  checked: Callable[[str], bool] = lambda name: True,
                  tainted: dict[str, str] | None = None) -> tuple[str, str]:
    """``script`` with every ``pattern`` match (group 1: the placeholder name) replaced by
    ``substitute(name, quoting_state)``, and the reason a command of it reads code from stdin
    (empty if none). Raises UnsafePlaceholder for placeholders (those ``checked`` says are
    case text) where a command in the script would parse them again."""
    out: list[str] = []
    scan = _Scan(checked, tainted=dict(tainted or {}))
    stack = ["u"]  # quoting states: s d u, "u(" "u`" command substitution, b ${…}, a $((…))
    i, n = 0, len(script)
    while i < n:
        state = stack[-1][0]
        m = pattern.match(script, i)
        if m:
            _placeholder(scan, m.group(1), stack)
            out.append(substitute(m.group(1), state if state in "uds" else "u"))
            i = m.end()
            continue
        step = _step(scan, script, i, stack)
        out.append(script[i:i + step])
        i += step
    frame = scan.frames[-1]
    _end_word(frame)
    _end_command(scan, frame, "")
    return "".join(out), scan.stdin_code


def _placeholder(scan: _Scan, name: str, stack: list[str]) -> None:
    if not scan.checked(name):
        return
    where = {"b": "inside a ${…} expansion, whose operators evaluate it",
             "a": "inside arithmetic $((…)), which runs $(…) in array subscripts"}
    if stack[-1] in where:
        raise UnsafePlaceholder(f"{{{name}}} is {where[stack[-1]]}; use \"${env_name(name)}\" "
                                "as a plain argument")
    if scan.heredoc:
        raise UnsafePlaceholder(f"{{{name}}} follows a here-document (<<), whose text a "
                                "command may read as code; pass \"$" + env_name(name) +
                                "\" as its own argument")
    frame = scan.frames[-1]
    frame.word.append(MARK)
    frame.held = frame.held or name
    frame.tainted = frame.tainted or name


def _step(scan: _Scan, script: str, i: int, stack: list[str]) -> int:
    """Scan one character (or two) of ``script`` at ``i``; returns how many."""
    frame, c, top = scan.frames[-1], script[i], stack[-1]
    var = _VARIABLE.match(script, i) if c == "$" and top in ("u", "d", "u(", "u`") else None
    if var and _held_by(scan, var.group(2)):
        _placeholder(scan, _held_by(scan, var.group(2)), stack)
        if var.group(1) and not var.group(3):
            stack.append("b")  # ${NAME…} with an operator: what follows is not the value
        return var.end() - i
    if top == "s":
        stack.pop() if c == "'" else frame.word.append(c)
        return 1
    if top == "a":
        if script.startswith("))", i):
            stack.pop()
            return 2
        return 1
    if c == "\\" and i + 1 < len(script):
        frame.word.append(script[i + 1])
        return 2
    if script.startswith("$((", i) or (top != "d" and script.startswith("((", i)):
        stack.append("a")
        return 3 if c == "$" else 2
    if script.startswith("${", i):
        stack.append("b")
        return 2
    if c == "}" and top == "b":
        stack.pop()
        return 1
    if script.startswith("$(", i) or (c == "`" and top != "u`"):
        stack.append("u(" if c == "$" else "u`")
        scan.frames.append(_Frame())
        return 2 if c == "$" else 1
    if (c == ")" and top == "u(") or (c == "`" and top == "u`"):
        stack.pop()
        inner = scan.frames.pop()
        _end_word(inner)
        _end_command(scan, inner, "")
        if inner.tainted:  # the substitution's output holds the value
            _placeholder(scan, inner.tainted, stack)
        return 1
    if top == "d" or top == "b":
        if c == '"' and top == "d":
            stack.pop()
        else:
            frame.word.append(c)
        return 1
    return _unquoted(scan, script, i, stack)


def _unquoted(scan: _Scan, script: str, i: int, stack: list[str]) -> int:
    frame, c = scan.frames[-1], script[i]
    if c == "'":
        stack.append("s")
    elif c == '"':
        stack.append("d")
    elif script.startswith("<<", i):
        scan.heredoc = True
        frame.word.append("<<")
        return 2
    elif c in _SEPARATORS:
        _end_word(frame)
        pipe = c == "|" and not script.startswith("||", i) and script[i - 1:i] != "|"
        _end_command(scan, frame, frame.held if pipe else "")
    elif c.isspace():
        _end_word(frame)
    else:
        frame.word.append(c)
    return 1


def _held_by(scan: _Scan, variable: str) -> str:
    """The placeholder a variable of the script holds ("" if none): agentv's $AGENTV_*, the
    script's arguments when the template passes case text there, and variables assigned
    from those."""
    return scan.tainted.get(variable, "")


def _taint(scan: _Scan, words: list[str], held: str) -> None:
    """``NAME=…{P}…`` (also after export/local…) and ``for NAME in …{P}…`` make NAME hold it."""
    if not held:
        return
    for word in words:
        if is_assignment(word) and MARK in word:
            scan.tainted[word.split("=", 1)[0]] = held
    if words[:1] in (["for"], ["select"]) and len(words) > 1 and any(MARK in w for w in words):
        scan.tainted[words[1]] = held


def _end_word(frame: _Frame) -> None:
    if frame.word:
        frame.words.append("".join(frame.word))
    frame.word = []


def _end_command(scan: _Scan, frame: _Frame, piped: str) -> None:
    """Check the simple command ``frame.words``; ``piped``: a placeholder held by this
    command whose output goes on through a pipe."""
    words, held, fed = frame.words, frame.held, frame.piped
    frame.words, frame.held, frame.piped = [], "", piped
    if not words:
        return
    _taint(scan, words, held)
    args = _arguments(words, held)
    found = roles(args)
    if fed and found.stdin_code:
        raise UnsafePlaceholder(f"{{{fed}}} is piped into {found.stdin_code}, so it would "
                                f"run as code; pass \"${env_name(fed)}\" as an argument instead")
    if not fed and found.stdin_code and len(scan.frames) == 1:
        scan.stdin_code = found.stdin_code
    if not held:
        return
    for index, word in enumerate(args):
        if MARK in word:
            why = _refusal(found.roles[index], found.program, args, index, held)
            if why:
                raise UnsafePlaceholder(f"{{{held}}} {why}".replace("$AGENTV_PROMPT",
                                                                     "$" + env_name(held)))


def _arguments(words: list[str], held: str) -> list[str]:
    """The command's words without redirections, leading assignments and keywords."""
    args: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        redirect = _REDIRECT.match(word)
        if redirect:
            skip = redirect.end() == len(word)
            continue
        if not args and (word in _KEYWORDS or is_assignment(word)):
            if held and is_assignment(word) and MARK in word.split("=", 1)[0]:
                raise UnsafePlaceholder(f"{{{held}}} is part of a variable name")
            continue
        args.append(word)
    if args and args[0] in ("for", "select", "case", "in"):
        return ["true", *args[1:]]
    return args


def _refusal(role: Role, program: str, args: list[str], index: int, held: str) -> str:
    """Why a placeholder may not stand at ``args[index]`` (empty: it is data there)."""
    word = args[index]
    if program in SHELL_EVALUATORS and index > 0:
        return (f"is an argument of {SHELL_EVALUATORS[program]}; use \"$AGENTV_PROMPT\" as "
                "a plain argument of a command that does not run it")
    if program in SHELL_DECLARERS and not (is_assignment(word) and MARK not in
                                           word.split("=", 1)[0]):
        return f"would be a variable name for {program}; write NAME=\"$AGENTV_PROMPT\""
    if program == "printf" and args[index - 1:index] == ["-v"]:
        return "would be printf -v's variable name; write the value as an argument"
    if role.kind == "script":
        return ("sits in a nested shell script, which would parse it as code; reference "
                "\"$AGENTV_PROMPT\" in the inner script instead")
    if role.kind == "refuse":
        return explain(role, held)
    if not is_whole(word) and program not in DATA_PROGRAMS:
        return (f"is embedded in the word {word.replace(MARK, '…')!r} of {program}, which "
                "agentv cannot tell is data; pass \"$AGENTV_PROMPT\" as a word of its own")
    return ""
