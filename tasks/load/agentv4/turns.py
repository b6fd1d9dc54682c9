"""A 4.x test's conversation keys → ``Conversation`` (AgentV 4.42.4's ``mode: conversation``):
``turns`` (each ``input``, ``expected_output`` and ``assertions`` — strings are one
``turn-rubrics`` llm-grader whose items are ``criterion-<n>``, in front of the others),
``aggregation`` (mean, min, max), ``on_turn_failure`` (continue, stop) and ``window_size``.
What AgentV's validator refuses is an error naming the line: turns or their settings without
``mode: conversation``, a conversation without turns, a turn without input, a top-level
``expected_output`` in a conversation; a value AgentV would silently ignore (an unknown
aggregation, say) is an error too."""
from __future__ import annotations

import json
from typing import Any, Callable

from agentv.evaluators.base import Evaluator
from agentv.evaluators.gated import Gated
from agentv.providers.errors import ConfigError, ErrorCollector, unknown_key
from agentv.tasks.load.agentv4.assertions import AssertionBuilder
from agentv.tasks.load.agentv4.templating import interpolate_vars
from agentv.tasks.load.conversation import AGGREGATIONS, ON_TURN_FAILURE, Conversation, Turn
from agentv.tasks.load.yamlsrc import LineDict, LineList

CONVERSATION_KEYS = ("mode", "turns", "aggregation", "on_turn_failure", "window_size")
TURN_KEYS = {"input", "expected_output", "assertions"}


def _line(obj: Any, key: Any, default: int) -> int:
    if isinstance(obj, LineDict) and key in obj:
        return obj.line_of(key)
    if isinstance(obj, LineList) and isinstance(key, int):
        return obj.line_of(key)
    return default


def as_text(value: Any) -> str:
    """AgentV's turn text: a string as is, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def conversation_of(raw: dict, variables: dict | None, builder: AssertionBuilder,
                    origin: str, line: int, warn: Callable[[str], None]
                    ) -> Conversation | None:
    """The test's conversation, or None for a test without ``mode``."""
    def at(key: str) -> str:
        return f"{origin}:{_line(raw, key, line)}"

    mode = raw.get("mode")
    if mode is None:
        for key in CONVERSATION_KEYS[1:]:
            if key in raw:
                raise ConfigError(f"'{key}' requires mode: conversation", at(key), key)
        return None
    if mode != "conversation":
        raise ConfigError(f"must be 'conversation', got {mode!r}", at("mode"), "mode")
    turns = raw.get("turns")
    if not isinstance(turns, list) or not turns:
        raise ConfigError("mode: conversation requires a non-empty 'turns' list", at("mode"),
                          "mode")
    if raw.get("expected_output") is not None:
        raise ConfigError("not allowed with mode: conversation (give each turn its "
                          "expected_output)", at("expected_output"), "expected_output")
    window = raw.get("window_size")
    if window is not None and (isinstance(window, bool) or not isinstance(window, int)
                               or window < 1):
        raise ConfigError(f"must be a whole number of 1 or more, got {window!r}",
                          at("window_size"), "window_size")
    errors = ErrorCollector()  # every turn's errors and the settings' at once
    parsed: list[Turn] = []
    for i, item in enumerate(turns):
        with errors.check():
            parsed.append(_turn(item, _line(turns, i, line), variables, builder, origin, warn))
    conversation = Conversation(turns=parsed, window_size=window)
    with errors.check():
        conversation.aggregation = _choice(raw, "aggregation", AGGREGATIONS, at)
    with errors.check():
        conversation.on_turn_failure = _choice(raw, "on_turn_failure", ON_TURN_FAILURE, at)
    errors.raise_any()
    return conversation


def _choice(raw: dict, key: str, allowed: tuple[str, ...], at: Callable[[str], str]) -> str:
    value = raw.get(key, allowed[0])
    if value not in allowed:
        raise ConfigError(f"must be one of {', '.join(allowed)}, got {value!r}", at(key), key)
    return value


def _turn(raw: Any, line: int, variables: dict | None, builder: AssertionBuilder,
          origin: str, warn: Callable[[str], None]) -> Turn:
    if not isinstance(raw, dict):
        raise ConfigError("a turn must be a mapping {input, expected_output, assertions}",
                          f"{origin}:{line}", "turns")
    for key in raw:
        if key not in TURN_KEYS:
            unknown_key(key, "turn", TURN_KEYS, f"{origin}:{_line(raw, key, line)}", warn)
    value = interpolate_vars(raw.get("input"), variables)
    if value in (None, "", []) or (isinstance(value, str) and not value.strip()):
        raise ConfigError("each turn needs a non-empty input", f"{origin}:{line}", "input")
    expected = interpolate_vars(raw.get("expected_output"), variables)
    evaluators = _turn_assertions(raw, line, builder)
    implicit = not evaluators and expected is not None
    return Turn(text=as_text(value), line=line,
                expected="" if expected is None else as_text(expected),
                evaluators=[builder.implicit_grader()] if implicit else evaluators,
                implicit=implicit)


def _turn_assertions(raw: dict, line: int, builder: AssertionBuilder) -> list[Evaluator]:
    """AgentV's ``buildTurnAssertions``: the strings as one ``turn-rubrics`` llm-grader
    (weight 1), then the structured assertions in their order."""
    items = raw.get("assertions")
    if items is None:
        return []
    where = _line(raw, "assertions", line)
    if not isinstance(items, list):
        raise ConfigError("must be a list of assertions", builder.at(where), "assertions")
    strings = [s.strip() for s in items if isinstance(s, str) and s.strip()]
    out: list[Evaluator] = []
    if strings:
        rubrics = [{"id": f"criterion-{i}", "outcome": s, "weight": 1}
                   for i, s in enumerate(strings, 1)]
        out.append(Gated(name="turn-rubrics", type="llm-grader",
                         inner=builder.make("rubrics", {"rubrics": rubrics}, where)))
    errors = ErrorCollector()
    for i, item in enumerate(items):
        if isinstance(item, str):
            continue
        item_line = _line(items, i, where)
        with errors.check():
            if not builder.skipped(item, item_line):
                out.append(builder.build(item, item_line))
    errors.raise_any()
    return out
