"""The typed fields of an eval file and its cases: strings, trials, target names, the
``execution`` mapping, unknown keys (a near miss of a known key is an error)."""
from __future__ import annotations

from typing import Any

from agentv.providers.errors import ConfigError, unknown_key
from agentv.tasks.load.yamlsrc import LineDict

FILE_KEYS = {"$schema", "description", "dataset", "target", "execution", "evalcases", "trials",
             "metadata", "evaluator", "evaluators", "workspace"}
CASE_KEYS = {"id", "expected_outcome", "outcome", "input_messages", "input", "expected_messages",
             "expected_output", "conversation_id", "execution", "evaluators", "rubrics",
             "description", "metadata", "trials", "note", "workspace"}
EXECUTION_KEYS = {"target", "evaluators", "trials", "fail_under", "min_pass_rate",
                  "fail_on_error"}
MAX_TRIALS = 1000


def warn_unknown(obj: dict, allowed: set[str], path: str, what: str, warn) -> None:
    for key in obj:
        if key not in allowed:
            line = obj.line_of(key) if isinstance(obj, LineDict) else 0
            unknown_key(key, what, allowed, f"{path}:{line}", warn)  # a near miss: an error


def str_field(obj: dict, key: str, path: str, default: str = "") -> str:
    value = obj.get(key, default)
    if value is None:
        return default
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        line = obj.line_of(key) if isinstance(obj, LineDict) else 0
        raise ConfigError(f"must be a string, got {type(value).__name__}", f"{path}:{line}", key)
    return str(value)


def trials_field(obj: dict, path: str) -> int | None:
    value = obj.get("trials")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_TRIALS:
        line = obj.line_of("trials") if isinstance(obj, LineDict) else 0
        raise ConfigError(f"must be a whole number from 1 to {MAX_TRIALS}, got {value!r}",
                          f"{path}:{line}", "trials")
    return value


def mapping_field(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def target_field(obj: dict, path: str) -> str | None:
    """``target`` / ``execution.target``: a target name (a string), or absent."""
    value = obj.get("target")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        line = obj.line_of("target") if isinstance(obj, LineDict) else 0
        shown = ("a list" if isinstance(value, list) else "a mapping" if isinstance(value, dict)
                 else repr(value))
        raise ConfigError(f"must be a target name (a string), got {shown}", f"{path}:{line}",
                          "target")
    return value


def execution_field(obj: dict, path: str, warn) -> dict:
    execution = obj.get("execution") or {}
    if not isinstance(execution, dict):
        line = obj.line_of("execution") if isinstance(obj, LineDict) else 0
        raise ConfigError("must be a mapping", f"{path}:{line}", "execution")
    warn_unknown(execution, EXECUTION_KEYS, path, "execution", warn)
    return execution
