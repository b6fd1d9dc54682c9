"""A pydantic validation error as the short phrase agentv's one-line errors use:
``must be >= 0, got -1``, ``must be a mapping``, ``is required``."""
from __future__ import annotations

from typing import Any

_PLAIN = {"list_type": "must be a list", "dict_type": "must be a mapping",
          "string_type": "must be a string", "int_type": "must be a whole number",
          "int_parsing": "must be a whole number", "int_from_float": "must be a whole number",
          "float_type": "must be a number", "float_parsing": "must be a number",
          "bool_type": "must be true or false", "bool_parsing": "must be true or false",
          "finite_number": "must be a finite number", "model_type": "must be a mapping",
          "string_too_short": "must not be empty", "model_attributes_type": "must be a mapping"}
_BOUNDS = {"greater_than_equal": (">=", "ge"), "less_than_equal": ("<=", "le"),
           "greater_than": (">", "gt"), "less_than": ("<", "lt")}


def describe_error(err: Any) -> str:
    """One pydantic error as a short phrase: ``must be >= 0, got -1``."""
    kind, ctx = err.get("type", ""), err.get("ctx") or {}
    if kind == "missing":
        return "is required"
    if kind in _PLAIN:
        msg = _PLAIN[kind]
    elif kind in _BOUNDS:
        bound = ctx.get(_BOUNDS[kind][1])
        if isinstance(bound, float) and bound.is_integer():
            bound = int(bound)
        msg = f"must be {_BOUNDS[kind][0]} {bound}"
    elif kind == "literal_error":
        msg = f"must be one of {ctx.get('expected', '')}".replace("'", "")
    else:
        msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
        msg = msg[:1].lower() + msg[1:]
    if "input" in err and "got " not in msg:
        value = err["input"]
        shown = repr(value) if not isinstance(value, (dict, list)) else type(value).__name__
        msg += f", got {shown[:80]}"
    return msg
