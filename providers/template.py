"""Command templates for agent targets: placeholders rendered into an argv, never a shell line.

The template is split into tokens once (``shlex``); each placeholder is replaced inside its
token, so a prompt full of ``$(...)``, backticks, ``;``, ``&&``, quotes or newlines stays one
verbatim argument and nothing can break or extend the command. ``{FILES}`` /
``{ATTACHMENTS}`` standing alone expand to one or more arguments per file (``files_format``,
e.g. ``--file {path}``). When the command is a shell running a script (``sh -c '...'``), values
substituted into that script are ``shlex``-quoted, so they stay data there too.
"""
from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field

from providers.errors import ConfigError

PLACEHOLDERS = ("PROMPT", "GUIDELINES", "EVAL_ID", "ATTEMPT", "FILES", "ATTACHMENTS",
                "OUTPUT_FILE")
LIST_PLACEHOLDERS = ("FILES", "ATTACHMENTS")
FILE_FIELDS = ("path", "basename")
SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "ash", "fish"}
_PLACEHOLDER = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")
_FILE_FIELD = re.compile(r"\{([a-z][a-z0-9_]*)\}")
_SCRIPT_FLAG = re.compile(r"^-[a-z]*c[a-z]*$")


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
        return cls(text, _split(text, where, name))

    def args(self, path: str) -> list[str]:
        values = {"path": path, "basename": os.path.basename(path)}
        return [_FILE_FIELD.sub(lambda m: values[m.group(1)], t) for t in self.tokens]

    def script_text(self, path: str) -> str:
        values = {"path": shlex.quote(path), "basename": shlex.quote(os.path.basename(path))}
        return _FILE_FIELD.sub(lambda m: values[m.group(1)], self.text)


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
        self.script_index = _script_index(self.tokens)

    def render(self, values: dict[str, str], files: dict[str, tuple[FileFormat, list[str]]]
               ) -> list[str]:
        """``values`` for scalar placeholders; ``files`` maps FILES/ATTACHMENTS to
        (format, paths). Unset placeholders render empty."""
        argv: list[str] = []
        for i, token in enumerate(self.tokens):
            name = token[1:-1] if _PLACEHOLDER.fullmatch(token) else None
            if name in LIST_PLACEHOLDERS:
                fmt, paths = files.get(name, (FileFormat.parse(None, "", name), []))
                argv.extend(a for p in paths for a in fmt.args(p))
                continue
            quoted = i == self.script_index
            argv.append(_PLACEHOLDER.sub(lambda m: _value(m.group(1), values, files, quoted),
                                         token))
        return argv


def _value(name: str, values: dict[str, str], files, quoted: bool) -> str:
    if name in LIST_PLACEHOLDERS:
        fmt, paths = files.get(name, (FileFormat.parse(None, "", name), []))
        if quoted:
            return " ".join(fmt.script_text(p) for p in paths)
        return " ".join(" ".join(fmt.args(p)) for p in paths)
    value = str(values.get(name, ""))
    return shlex.quote(value) if quoted else value


def _split(text: str, where: str, name: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError as err:
        raise ConfigError(f"cannot be split into arguments: {err}", where, name) from None


def _script_index(tokens: list[str]) -> int | None:
    """Index of the script argument when the command is ``<shell> [-flags] -c SCRIPT``."""
    if not tokens or os.path.basename(tokens[0]) not in SHELLS:
        return None
    for i, token in enumerate(tokens[1:-1], start=1):
        if _SCRIPT_FLAG.match(token):
            return i + 1
    return None
