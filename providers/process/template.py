"""Command templates for agent targets: placeholders rendered into an argv, never a shell line.

The template is split into tokens once (``shlex``); each placeholder is replaced inside its
token, so a prompt full of ``$(...)``, backticks, ``;``, ``&&``, quotes or newlines stays one
verbatim argument and nothing can break or extend the command. ``{FILES}`` /
``{ATTACHMENTS}`` standing alone expand to one or more arguments per file (``files_format``,
e.g. ``--file {path}``).

Every value is also in the command's environment (``AGENTV_PROMPT``, ``AGENTV_GUIDELINES``,
``AGENTV_EVAL_ID``, ``AGENTV_ATTEMPT``, ``AGENTV_OUTPUT_FILE``; ``AGENTV_FILES`` /
``AGENTV_ATTACHMENTS`` newline-separated).

Case text is data by construction where it is delivered as data: ``{PROMPT_FILE}`` (a file
holding the prompt, beside ``{OUTPUT_FILE}``), the ``AGENTV_*`` variables and stdin
(``prompt_via: stdin``). Substituted into argv it is still possible; what the program does
with it is contained by the OS sandbox every case process runs in
(``providers.process.sandbox``), not by this module. The shape checker
(``providers.process.command_shape``) is a **lint**: a placeholder holding case text
(``CASE_TEXT``) where a program may read it as code or options (an interpreter's code, the
program name, a remote or privilege wrapper, an argument it is embedded in) adds a warning to
``lints`` naming the safe rewrite; it no longer refuses the template. Inside a ``sh``/``bash
-c`` script a placeholder still becomes a quoted reference to its ``$AGENTV_*`` variable
(``providers.process.shell_script``).
"""
from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field

from agentv.providers.errors import ConfigError
from agentv.providers.process.command_shape import explain, roles
from agentv.providers.process.programs import DATA_PROGRAMS
from agentv.providers.process.shell_script import (
    UnsafePlaceholder,
    env_name,
    is_whole,
    reference,
    render_script,
    requote,
)

PLACEHOLDERS = ("PROMPT", "GUIDELINES", "EVAL_ID", "ATTEMPT", "FILES", "ATTACHMENTS",
                "OUTPUT_FILE", "PROMPT_FILE")
LIST_PLACEHOLDERS = ("FILES", "ATTACHMENTS")
# placeholders whose values come from the case (ATTEMPT, OUTPUT_FILE and PROMPT_FILE — a file
# holding the prompt, AgentV 4.x's — are agentv's own)
CASE_TEXT = ("PROMPT", "GUIDELINES", "EVAL_ID", "FILES", "ATTACHMENTS")
FILE_FIELDS = ("path", "basename")
_PLACEHOLDER = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")
_FILE_FIELD = re.compile(r"\{([a-z][a-z0-9_]*)\}")


@dataclass
class FileFormat:
    """``--file {path}``: how one file becomes arguments (``{path}``, ``{basename}``)."""

    text: str = "{path}"
    tokens: list[str] = field(default_factory=list)

    @classmethod
    def parse(cls, text: str | None, where: str, name: str) -> "FileFormat":
        text = "{path}" if text is None else text
        if not isinstance(text, str) or not text.strip():
            raise ConfigError("must be a non-empty string such as '--file {path}'", where, name)
        for m in _FILE_FIELD.finditer(text):
            if m.group(1) not in FILE_FIELDS:
                raise ConfigError(f"unknown placeholder {{{m.group(1)}}} (known: {{path}}, "
                                  "{basename})", where, name)
        tokens = _split(text, where, name)
        for token in tokens:  # file names come from the case: whole arguments only
            if _FILE_FIELD.search(token) and not is_whole(_FILE_FIELD.sub("\0", token)):
                raise ConfigError(f"{token!r} embeds a file name in a larger argument, which "
                                  "agentv cannot tell is data; write it as its own argument "
                                  "('--file {path}') or as '--file={path}'", where, name)
        return cls(text, tokens)

    def args(self, path: str) -> list[str]:
        values = {"path": path, "basename": os.path.basename(path)}
        return [_FILE_FIELD.sub(lambda m: values[m.group(1)], t) for t in self.tokens]

    def script_text(self, placeholder: str, index: int) -> str:
        """This file as written at an unquoted place of a shell script: variable references."""
        return _FILE_FIELD.sub(lambda m: reference(env_name(placeholder, index, m.group(1)), "u"),
                               self.text)


class CommandTemplate:
    def __init__(self, text: object, where: str, name: str = "command_template",
                 allowed: tuple[str, ...] = PLACEHOLDERS):
        if text is None:
            raise ConfigError("is required (the command to run, e.g. 'python agent.py "
                              "--prompt {PROMPT}')", where, name)
        if not isinstance(text, str) or not text.strip():
            raise ConfigError("must be a non-empty string", where, name)
        for m in _PLACEHOLDER.finditer(text):
            if m.group(1) not in allowed:
                raise ConfigError(f"unknown placeholder {{{m.group(1)}}} (known: "
                                  f"{', '.join('{' + p + '}' for p in allowed)})", where, name)
        self.text = text
        self.tokens = _split(text, where, name)
        self.uses = {m.group(1) for m in _PLACEHOLDER.finditer(text)}
        found = roles(self.tokens)
        self.lints: list[str] = []  # the shape checker's warnings (with the rewrite)
        self.name = name
        self.script_index = found.script
        self.stdin_code = found.stdin_code
        for index, token in enumerate(self.tokens):
            held = _case_text(token)
            if not held:
                continue
            role = found.roles[index]
            if role.kind == "refuse":
                self.lints.append(f"{{{held}}} {explain(role, held)}")
            elif role.kind == "data" and found.program not in DATA_PROGRAMS and not is_whole(
                    _PLACEHOLDER.sub("\0", token)):
                self.lints.append(
                    f"{{{held}}} is embedded in the argument {token!r} of {found.program}, "
                    f"which agentv cannot tell is data; pass {{{held}}} as its own argument "
                    f"(or --option={{{held}}}), or use \"${env_name(held)}\" in a sh -c "
                    "script")
        if self.script_index is not None:
            try:  # flag placeholders the script would parse again (python -c, eval, sh -c)
                _, script_stdin = self._script(self.tokens[self.script_index], {}, {}, True)
                self.stdin_code = self.stdin_code or script_stdin
            except UnsafePlaceholder as err:
                self.lints.append(str(err))

    def _tainted(self) -> dict[str, str]:
        return script_variables(self.tokens[(self.script_index or 0) + 1:])

    def render(self, values: dict[str, str], files: dict[str, tuple[FileFormat, list[str]]]
               ) -> list[str]:
        """``values`` for scalar placeholders; ``files`` maps FILES/ATTACHMENTS to
        (format, paths). Unset placeholders render empty."""
        argv: list[str] = []
        for i, token in enumerate(self.tokens):
            if i == self.script_index:
                argv.append(self._script(token, values, files)[0])
                continue
            name = token[1:-1] if _PLACEHOLDER.fullmatch(token) else None
            if name in LIST_PLACEHOLDERS:
                fmt, paths = files.get(name, (FileFormat.parse(None, "", name), []))
                argv.extend(a for p in paths for a in fmt.args(p))
                continue
            argv.append(_PLACEHOLDER.sub(lambda m: _value(m.group(1), values, files), token))
        return argv

    def _script(self, token: str, values: dict[str, str], files, check: bool = False
                ) -> tuple[str, str]:
        tainted = self._tainted() if check else {}
        def substitute(name: str, state: str) -> str:
            if name not in LIST_PLACEHOLDERS:
                return reference(env_name(name), state)
            fmt, paths = files.get(name, (FileFormat.parse(None, "", name), []))
            text = " ".join(fmt.script_text(name, i) for i in range(1, len(paths) + 1))
            return requote(text, state) if text else ""
        return render_script(token, _PLACEHOLDER, substitute,
                             (lambda held: held in CASE_TEXT) if check else lambda held: False,
                             tainted)


def environment(values: dict[str, str], files: dict[str, tuple[FileFormat, list[str]]]
                ) -> dict[str, str]:
    """The placeholder values as ``AGENTV_*`` environment variables."""
    env = {env_name(k): str(v) for k, v in values.items() if k not in LIST_PLACEHOLDERS}
    for name, (_fmt, paths) in files.items():
        env[env_name(name)] = "\n".join(paths)
        for i, path in enumerate(paths, start=1):
            env[env_name(name, i)] = path
            env[env_name(name, i, "basename")] = os.path.basename(path)
    return env


def script_variables(after_script: list[str]) -> dict[str, str]:
    """The variables of a ``sh -c`` script that hold case text: ``$AGENTV_PROMPT``… always,
    ``$1``… ``$@`` when the template passes case text after the script."""
    held = {env_name(p): p for p in CASE_TEXT}
    passed = next((h for h in map(_case_text, after_script) if h), "")
    if passed:
        held.update(dict.fromkeys([*"0123456789", "@", "*"], passed))
    return held


def _case_text(token: str) -> str:
    """The first placeholder in ``token`` that holds case text ("" if none)."""
    return next((m.group(1) for m in _PLACEHOLDER.finditer(token) if m.group(1) in CASE_TEXT),
                "")


def _value(name: str, values: dict[str, str], files) -> str:
    if name in LIST_PLACEHOLDERS:
        fmt, paths = files.get(name, (FileFormat.parse(None, "", name), []))
        return " ".join(" ".join(fmt.args(p)) for p in paths)
    return str(values.get(name, ""))


def _split(text: str, where: str, name: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError as err:
        raise ConfigError(f"cannot be split into arguments: {err}", where, name) from None
