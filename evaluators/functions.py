"""Typed evaluators and combinators (seed 002): plain functions returning ``Score``.

An evaluator is ``(output, expected) -> Score`` or, session-aware,
``(output, expected, session) -> Score`` where ``session`` is a ``SessionView``.
``all_of`` / ``any_of`` accept both kinds (plain ones are adapted) and nest.
"""
from __future__ import annotations

import re
from typing import Any, Callable

from agentv.evaluators.jsonutil import number_in_text, parse_json, subset_mismatches
from agentv.evaluators.score import Score, as_score, combine, passed_score, session_aware

_SESSION_NAMES = ("SessionView", "Session")


def exact_match(output: Any, expected: Any) -> Score:
    """Strict equality (``==``)."""
    passed = output == expected
    return passed_score(passed, "" if passed else f"expected {expected!r}, got {output!r}")


def contains(output: Any, expected: Any) -> Score:
    """``expected`` appears in ``output`` (as text)."""
    passed = str(expected) in str(output)
    return passed_score(passed, "" if passed else f"{str(expected)!r} not found in output")


def regex(pattern: str, flags: int = 0) -> Callable[[Any, Any], Score]:
    """Factory: the output matches ``pattern`` (``re.search``)."""
    compiled = re.compile(pattern, flags)

    def evaluate(output: Any, expected: Any) -> Score:
        found = compiled.search(str(output))
        return passed_score(found is not None,
                            f"matched {found.group(0)!r}" if found
                            else f"no match for /{pattern}/")
    evaluate.__name__ = "regex"
    return evaluate


def is_json(schema: dict[str, Any] | None = None) -> Callable[[Any, Any], Score]:
    """Factory: the output is JSON, valid against ``schema`` when one is given."""

    def evaluate(output: Any, expected: Any) -> Score:
        try:
            value = parse_json(output)
        except ValueError:
            return passed_score(False, "output is not valid JSON")
        if schema is None:
            return passed_score(True, "output is valid JSON")
        errors = schema_errors(value, schema)
        return passed_score(not errors, "; ".join(errors[:3]) or "output matches the schema")
    evaluate.__name__ = "is_json"
    return evaluate


def schema_errors(value: Any, schema: dict[str, Any]) -> list[str]:
    import jsonschema  # lazy: only when a schema is used

    validator = jsonschema.validators.validator_for(schema)(schema)
    return [f"{'/'.join(map(str, e.absolute_path)) or '$'}: {e.message}"
            for e in validator.iter_errors(value)]


def json_subset(output: Any, expected: Any) -> Score:
    """Every key/value of ``expected`` is present in ``output`` (nested mappings recurse).
    The value is the fraction of ``expected``'s top-level keys that hold."""
    try:
        actual, wanted = parse_json(output), parse_json(expected)
    except ValueError:
        return passed_score(False, "output is not valid JSON")
    misses = subset_mismatches(wanted, actual)
    if not isinstance(wanted, dict) or not isinstance(actual, dict):
        return passed_score(not misses, "; ".join(misses))
    held = sum(1 for key in wanted if not subset_mismatches({key: wanted[key]}, actual))
    value = held / len(wanted) if wanted else 1.0
    return Score(value=value, passed=not misses, reason="; ".join(misses[:4]))


def within_tolerance(tolerance: float, *, relative: bool = False) -> Callable[[Any, Any], Score]:
    """Factory: ``|output - expected| <= tolerance`` (relative: ``tolerance × |expected|``).
    The value falls linearly from 1 at an exact match to 0 at the tolerance."""
    if tolerance < 0:
        raise ValueError("tolerance must be >= 0")

    def evaluate(output: Any, expected: Any) -> Score:
        got, want = number_in_text(output), number_in_text(expected)
        if got is None or want is None:
            which = "output" if got is None else "expected value"
            return passed_score(False, f"{which} is not a number")
        diff = abs(got - want)
        limit = tolerance * abs(want) if relative else tolerance
        passed = diff <= limit
        value = max(0.0, 1.0 - diff / limit) if limit > 0 else float(passed)
        return Score(value=value, passed=passed, reason=f"diff={diff:.4g} (tolerance {limit:.4g})")
    evaluate.__name__ = "within_tolerance"
    return evaluate


def is_session_aware(fn: Callable[..., Any]) -> bool:
    """True when ``fn`` needs the session: it has three REQUIRED positional parameters
    (``def close(output, expected, tol=0.1)`` is plain), takes ``*args``, annotates its
    third parameter as a ``SessionView``, or is one of agentv's session checks/combinators."""
    import inspect

    if getattr(fn, "__agentv_session_aware__", False):
        return True
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is inspect.Parameter.empty]
    if len(required) >= 3:
        return True
    if len(positional) < 3:
        return False
    hint = positional[2].annotation
    text = hint if isinstance(hint, str) else getattr(hint, "__name__", repr(hint))
    return hint is not inspect.Parameter.empty and any(n in text for n in _SESSION_NAMES)


def adapt(evaluator: Callable[..., Any]) -> Callable[[Any, Any, Any], Score]:
    """A plain ``(output, expected)`` evaluator as a session-aware one (session ignored)."""
    if is_session_aware(evaluator):
        return evaluator

    def evaluate(output: Any, expected: Any, session: Any = None) -> Score:
        return as_score(evaluator(output, expected))
    evaluate.__name__ = getattr(evaluator, "__name__", "adapted")
    return session_aware(evaluate)


def _combine(evaluators: tuple[Callable[..., Any], ...], require_all: bool):
    if not evaluators:
        raise ValueError(f"{'all_of' if require_all else 'any_of'} needs at least one evaluator")
    adapted = [adapt(e) for e in evaluators]

    def evaluate(output: Any, expected: Any, session: Any = None) -> Score:
        scores = [as_score(e(output, expected, session)) for e in adapted]
        value, passed = combine([(s.value, s.passed) for s in scores], require_all)
        return Score(value=value, passed=passed,
                     reason="; ".join(s.reason for s in scores if s.reason))
    evaluate.__name__ = "all_of" if require_all else "any_of"
    return session_aware(evaluate)


def all_of(*evaluators: Callable[..., Any]) -> Callable[[Any, Any, Any], Score]:
    """All must pass; the value is the mean."""
    return _combine(evaluators, require_all=True)


def any_of(*evaluators: Callable[..., Any]) -> Callable[[Any, Any, Any], Score]:
    """At least one must pass; the value is the max."""
    return _combine(evaluators, require_all=False)
