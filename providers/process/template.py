"""Command templates for agent targets: placeholders rendered into an argv, never a shell line.

The template is split into tokens once (``shlex``); each placeholder is replaced inside its
token, so a prompt full of ``$(...)``, backticks, ``;``, ``&&``, quotes or newlines stays one
verbatim argument and nothing can break or extend the command. ``{FILES}`` /
``{ATTACHMENTS}`` standing alone expand to one or more arguments per file (``files_format``,
e.g. ``--file {path}``).

Every value is also in the command's environment (``AGENTV_PROMPT``, ``AGENTV_GUIDELINES``,
``AGENTV_EVAL_ID``, ``AGENTV_ATTEMPT``, ``AGENTV_OUTPUT_FILE``; ``AGENTV_FILES`` /
``AGENTV_ATTACHMENTS`` newline-separated). When the program run — past wrapper prefixes such
as ``timeout 30``, ``env X=1``, ``nice -n 1``, ``sudo -u u`` — is a shell with a script
(``sh -c``, ``bash -lc``), placeholders in that script become references to those variables
(``providers.process.shell_script``), so the shell never parses a value. A placeholder inside an
interpreter's code (``python -c``, ``node -e``, ``perl -e``...) is a configuration error.
"""
from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field

from providers.errors import ConfigError
from providers.process.command_shape import Shape, shape
from providers.process.shell_script import (UnsafePlaceholder, env_name, reference, render_script,
                                    requote)

PLACEHOLDERS = ("PROMPT", "GUIDELINES", "EVAL_ID", "ATTEMPT", "FILES", "ATTACHMENTS",
                "OUTPUT_FILE")
LIST_PLACEHOLDERS = ("FILES", "ATTACHMENTS")
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
        return cls(text, _split(text, where, name))

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
        found = shape(self.tokens)
        remote_shell_check(self.tokens, found, where, name)
        self.script_index = found.script
        in_code = _PLACEHOLDER.search(self.tokens[found.code]) if found.code is not None else None
        if in_code:
            held = in_code.group(1)
            raise ConfigError(f"{{{held}}} is inside {found.interpreter}'s code argument, where "
                              "it would run as code; pass it as a separate argument after the "
                              f"code ({found.hint}) or read ${env_name(held)} from the "
                              "environment", where, name)
        if self.script_index is not None:
            try:  # refuse placeholders the script would parse again (python -c, eval, sh -c)
                self._script(self.tokens[self.script_index], {}, {})
            except UnsafePlaceholder as err:
                raise ConfigError(str(err), where, name) from None

    def render(self, values: dict[str, str], files: dict[str, tuple[FileFormat, list[str]]]
               ) -> list[str]:
        """``values`` for scalar placeholders; ``files`` maps FILES/ATTACHMENTS to
        (format, paths). Unset placeholders render empty."""
        argv: list[str] = []
        for i, token in enumerate(self.tokens):
            if i == self.script_index:
                argv.append(self._script(token, values, files))
                continue
            name = token[1:-1] if _PLACEHOLDER.fullmatch(token) else None
            if name in LIST_PLACEHOLDERS:
                fmt, paths = files.get(name, (FileFormat.parse(None, "", name), []))
                argv.extend(a for p in paths for a in fmt.args(p))
                continue
            argv.append(_PLACEHOLDER.sub(lambda m: _value(m.group(1), values, files), token))
        return argv

    @staticmethod
    def _script(token: str, values: dict[str, str], files) -> str:
        def substitute(name: str, state: str) -> str:
            if name not in LIST_PLACEHOLDERS:
                return reference(env_name(name), state)
            fmt, paths = files.get(name, (FileFormat.parse(None, "", name), []))
            text = " ".join(fmt.script_text(name, i) for i in range(1, len(paths) + 1))
            return requote(text, state) if text else ""
        return render_script(token, _PLACEHOLDER, substitute)


def remote_shell_check(tokens: list[str], found: Shape, where: str, name: str) -> None:
    """Refuse placeholders that a remote shell would parse: anything after ``ssh``'s
    destination, and a script run by ``docker exec … sh -c`` (our variables stay here)."""
    if found.remote is not None:
        held = next((m.group(1) for t in tokens[found.remote:] for m in _PLACEHOLDER.finditer(t)),
                    None)
        if held:
            raise ConfigError(unsafe_remote(held, "ssh's remote command: ssh joins it into one "
                                            "line that the remote shell parses as code"),
                              where, name)
    if found.runner and found.script is not None:
        held_in = _PLACEHOLDER.search(tokens[found.script])
        if held_in:
            raise ConfigError(unsafe_remote(held_in.group(1), (
                f"a shell script run by {found.runner}, where agentv's $AGENTV_* variables do "
                f"not reach; pass it as an argument after the script (sh -c '… \"$1\"' sh "
                f"{{{held_in.group(1)}}})")), where, name)


def unsafe_remote(held: str, why: str) -> str:
    safe = (" or send the prompt on stdin (prompt_via: stdin; 'ssh -T host agent' / "
            "'docker exec -i …' read it)") if held == "PROMPT" else ""
    return f"{{{held}}} is inside {why}{safe}"


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
