"""AgentV 4.x's two substitutions, keeping every line number: ``${{ VAR }}`` from the
environment over the whole file (a value that is only the placeholder becomes a boolean or
number when it reads as one; an unset variable is empty), and a test's ``vars`` as
``{{ name }}`` / ``{{ a.b }}`` in its criteria, input, input_files and expected_output (a
value that is only the placeholder takes the variable's value as is; an unknown name stays)."""
from __future__ import annotations

import json
import re
from typing import Any, Callable, Mapping

from agentv.tasks.load.yamlsrc import LineDict, LineList

ENV = re.compile(r"\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
WHOLE_ENV = re.compile(r"^\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$")
VAR = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}")
WHOLE_VAR = re.compile(r"^\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}$")
_NUMBER = re.compile(r"^-?(?:0|[1-9]\d*)(?:\.\d+)?$")
_UNSET = object()


def mapped(value: Any, on_text: Callable[[str], Any]) -> Any:
    """``value`` with every string replaced by ``on_text(string)``; mappings and lists keep
    their line numbers."""
    if isinstance(value, str):
        return on_text(value)
    if isinstance(value, dict):
        out: Any = LineDict() if isinstance(value, LineDict) else {}
        for key, item in value.items():
            out[key] = mapped(item, on_text)
        _copy_lines(value, out)
        return out
    if isinstance(value, list):
        items = [mapped(item, on_text) for item in value]
        out = LineList(items) if isinstance(value, LineList) else items
        _copy_lines(value, out)
        return out
    return value


def _copy_lines(src: Any, dst: Any) -> None:
    for attr in ("line", "key_lines", "item_lines", "source"):
        if hasattr(src, attr):  # a LineDict or LineList: its lines
            setattr(dst, attr, getattr(src, attr))


def _primitive(text: str) -> Any:
    if text in ("true", "false"):
        return text == "true"
    if _NUMBER.match(text):
        number = float(text)
        return int(number) if number.is_integer() and "." not in text else number
    return text


def interpolate_env(value: Any, env: Mapping[str, str]) -> Any:
    def one(text: str) -> Any:
        whole = WHOLE_ENV.match(text)
        if whole:
            return _primitive(env.get(whole.group(1), ""))
        return ENV.sub(lambda m: env.get(m.group(1), ""), text) if "${{" in text else text
    return mapped(value, one)


def _lookup(variables: Mapping[str, Any], expression: str) -> Any:
    current: Any = variables
    for part in expression.split("."):
        if not isinstance(current, dict) or part not in current:
            return _UNSET
        current = current[part]
    return current


def interpolate_vars(value: Any, variables: Mapping[str, Any] | None) -> Any:
    if not variables:
        return value

    def one(text: str) -> Any:
        if "{{" not in text:
            return text
        whole = WHOLE_VAR.match(text)
        if whole:
            found = _lookup(variables, whole.group(1))
            return text if found is _UNSET else found

        def sub(match: re.Match[str]) -> str:
            found = _lookup(variables, match.group(1))
            if found is _UNSET:
                return match.group(0)
            return found if isinstance(found, str) else json.dumps(found,
                                                                    separators=(",", ":"))
        return VAR.sub(sub, text)
    return mapped(value, one)
