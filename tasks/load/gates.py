"""Quality gates as declared: an eval file's ``execution`` block (``fail_under``,
``min_pass_rate``, ``fail_on_error``), the run's options or nightly parameters, validated into
``Gates``. Checking a finished run against them is ``tasks.results.gates``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentv.providers.errors import ConfigError

GATE_KEYS = ("fail_under", "min_pass_rate", "fail_on_error")


@dataclass(frozen=True)
class Gates:
    fail_under: float | None = None
    min_pass_rate: float | None = None
    # True: any case or evaluator error fails the run; None (not said): a case that errored
    # (the target gave no answer) fails the run; False: errors never fail it
    fail_on_error: bool | None = None

    @property
    def active(self) -> bool:
        return (self.fail_under is not None or self.min_pass_rate is not None
                or self.fail_on_error is True)


def _rate(value: Any, field: str, where: str | None) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ConfigError(f"must be a number between 0 and 1, got {value!r}", where, field)
    return float(value)


def parse_gates(mapping: dict[str, Any], where: str | None = None,
                line_of=lambda key: None) -> Gates:
    """Gates from an ``execution`` block or deployment parameters (validated)."""
    def at(key: str) -> str | None:
        line = line_of(key)
        return f"{where}:{line}" if where and line else where
    fail_on_error = mapping.get("fail_on_error")
    if fail_on_error is not None and not isinstance(fail_on_error, bool):
        raise ConfigError(f"must be true or false, got {fail_on_error!r}", at("fail_on_error"),
                          "fail_on_error")
    return Gates(fail_under=_rate(mapping.get("fail_under"), "fail_under", at("fail_under")),
                 min_pass_rate=_rate(mapping.get("min_pass_rate"), "min_pass_rate",
                                     at("min_pass_rate")),
                 fail_on_error=fail_on_error)


def options_gates(options: Any) -> Gates:
    """The run-wide gates of EvalOptions (``--fail-under`` …), validated."""
    try:
        return parse_gates({k: getattr(options, k, None) for k in GATE_KEYS
                            if getattr(options, k, None) is not None}, None)
    except ConfigError as err:
        raise ConfigError(err.message, None,
                          f"--{(err.field or '').replace('_', '-')}") from None
