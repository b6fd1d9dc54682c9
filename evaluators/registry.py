"""Evaluator ``type`` → class, imported lazily; builds evaluators from YAML config.

Unknown config keys are reported as warnings (never silently dropped); invalid
values raise ``ConfigError`` naming file:line and field.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable

from pydantic import ValidationError

from evaluators.base import Evaluator
from providers.base import ConfigError

# type -> "module:Class"
EVALUATORS: dict[str, str] = {
    "llm_judge": "evaluators.llm_judge:LlmJudge",
    "code_judge": "evaluators.code:CodeJudge",
    "code": "evaluators.code:CodeJudge",
}


def known_types() -> list[str]:
    return sorted(EVALUATORS)


def evaluator_class(kind: str, where: str = "") -> type[Evaluator]:
    spec = EVALUATORS.get(kind)
    if spec is None:
        raise ConfigError(f"unknown evaluator type '{kind}' (known: {', '.join(known_types())})",
                          where, "type")
    module_name, _, cls_name = spec.partition(":")
    return getattr(importlib.import_module(module_name), cls_name)


def build_evaluator(config: dict[str, Any], *, base_dir: str = ".", where: str = "",
                    warn: Callable[[str], None] | None = None) -> Evaluator:
    if not isinstance(config, dict):
        raise ConfigError(f"an evaluator must be a mapping, got {type(config).__name__}", where)
    kind = config.get("type")
    if not kind:
        raise ConfigError("evaluator needs a 'type'", where, "type")
    cls = evaluator_class(str(kind), where)
    try:
        evaluator = cls.model_validate({**config, "base_dir": base_dir})
    except ValidationError as err:
        first = err.errors()[0]
        field = ".".join(str(p) for p in first.get("loc", ())) or None
        raise ConfigError(f"{first.get('msg')} (evaluator '{config.get('name') or kind}')",
                          where, field) from None
    extras = sorted((evaluator.model_extra or {}).keys())
    if extras and warn:
        warn(f"{where}: unknown key(s) {', '.join(extras)} in evaluator "
             f"'{config.get('name') or kind}' (ignored)")
    return evaluator


def build_evaluators(configs: list[Any], *, base_dir: str, where: str,
                     warn: Callable[[str], None] | None = None,
                     line_of: Callable[[int], str] | None = None) -> list[Evaluator]:
    """Build a list; a member without a name gets ``<type>`` or ``<type>_<n>``."""
    built: list[Evaluator] = []
    seen: dict[str, int] = {}
    for i, cfg in enumerate(configs or []):
        loc = line_of(i) if line_of else where
        ev = build_evaluator(cfg, base_dir=base_dir, where=loc, warn=warn)
        base = ev.name or ev.type or ev.kind
        seen[base] = seen.get(base, 0) + 1
        if not ev.name:
            ev.name = base if seen[base] == 1 else f"{base}_{seen[base]}"
        built.append(ev)
    return built
