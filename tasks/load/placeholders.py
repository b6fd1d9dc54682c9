"""``${{ VAR }}`` placeholders in targets files: find them, reject malformed ones, fill them in."""
from __future__ import annotations

import re
from typing import Any, Mapping

from agentv.providers.errors import ConfigError

INTERP = re.compile(r"\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
ANY_INTERP = re.compile(r"\$\{\{(.*?)\}\}")


def placeholders(value: Any) -> list[str]:
    if isinstance(value, str):
        return INTERP.findall(value)
    if isinstance(value, list):
        return [v for item in value for v in placeholders(item)]
    if isinstance(value, dict):
        return [v for item in value.values() for v in placeholders(item)]
    return []


def check_placeholders(value: Any, at: str, key: str) -> None:
    if isinstance(value, str):
        for m in ANY_INTERP.finditer(value):
            if not INTERP.fullmatch(m.group(0)):
                raise ConfigError(f"malformed placeholder {m.group(0)!r} (expected "
                                  "${{ VARIABLE_NAME }}: letters, digits, _; not starting "
                                  "with a digit)", at, key)
    elif isinstance(value, (list, dict)):
        for item in (value.values() if isinstance(value, dict) else value):
            check_placeholders(item, at, key)


def interpolate(value: Any, env: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return INTERP.sub(lambda m: env.get(m.group(1), ""), value)
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    return value
