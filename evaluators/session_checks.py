"""Session-aware typed evaluators (seed 002): assertions on how the target got its answer.

Each factory returns ``(output, expected, session) -> Score``; ``session`` is a
``SessionView`` (``None`` counts as a target that reported no trace).
"""
from __future__ import annotations

from typing import Any, Callable

from evaluators.score import Score, passed_score
from evaluators.session import EMPTY_SESSION, SessionView
from providers.trace import TraceEvent

SessionCheck = Callable[[Any, Any, Any], Score]


def _view(session: SessionView | None) -> SessionView:
    return session if isinstance(session, SessionView) else EMPTY_SESSION


def _no_trace(view: SessionView) -> str:
    return "" if view.has_trace else " (the target reported no trace)"


def tool_called(name: str) -> SessionCheck:
    """The tool was called at least once."""

    def evaluate(output: Any, expected: Any, session: SessionView | None = None) -> Score:
        view = _view(session)
        count = len(view.tool_calls(name))
        return passed_score(count > 0, f"tool '{name}' called {count} time(s){_no_trace(view)}")
    evaluate.__name__ = "tool_called"
    return evaluate


def tool_not_called(name: str) -> SessionCheck:
    """The tool was never called."""

    def evaluate(output: Any, expected: Any, session: SessionView | None = None) -> Score:
        view = _view(session)
        count = len(view.tool_calls(name))
        return passed_score(count == 0, f"tool '{name}' called {count} time(s){_no_trace(view)}")
    evaluate.__name__ = "tool_not_called"
    return evaluate


def tool_call_count(name: str, *, min_count: int = 0, max_count: int | None = None
                    ) -> SessionCheck:
    """The tool's call count is within ``[min_count, max_count]`` (inclusive)."""
    if min_count < 0 or (max_count is not None and max_count < min_count):
        raise ValueError(f"invalid bounds: min {min_count}, max {max_count}")
    bounds = f">= {min_count}" if max_count is None else f"{min_count}-{max_count}"

    def evaluate(output: Any, expected: Any, session: SessionView | None = None) -> Score:
        view = _view(session)
        count = len(view.tool_calls(name))
        passed = count >= min_count and (max_count is None or count <= max_count)
        return passed_score(passed, f"tool '{name}' called {count} time(s) (expected {bounds})"
                                    f"{_no_trace(view)}")
    evaluate.__name__ = "tool_call_count"
    return evaluate


def tool_failed(event: TraceEvent) -> bool:
    result = event.result
    return not event.ok or (isinstance(result, dict) and result.get("success") is False)


def all_tools_succeeded() -> SessionCheck:
    """No tool call failed (``ok: false``, an error status, or a result with success=false)."""

    def evaluate(output: Any, expected: Any, session: SessionView | None = None) -> Score:
        view = _view(session)
        failed = [e.name or "unknown" for e in view.tool_calls() if tool_failed(e)]
        if failed:
            return passed_score(False, f"failed tools: {', '.join(failed)}")
        return passed_score(True, f"{len(view.tool_calls())} tool call(s), none failed"
                                  f"{_no_trace(view)}")
    evaluate.__name__ = "all_tools_succeeded"
    return evaluate


def token_usage_under(max_tokens: int) -> SessionCheck:
    """Total tokens (input + output) are at most ``max_tokens``."""

    def evaluate(output: Any, expected: Any, session: SessionView | None = None) -> Score:
        total = _view(session).total_tokens
        if total is None:
            return passed_score(False, "no token usage reported")
        return passed_score(total <= max_tokens, f"used {total} tokens (limit: {max_tokens})")
    evaluate.__name__ = "token_usage_under"
    return evaluate


def event_matches(event: TraceEvent, predicate: Callable[[TraceEvent], bool] | dict | None
                  ) -> bool:
    """A callable predicate, or a mapping every field of which the event's dict contains."""
    if predicate is None:
        return True
    if callable(predicate):
        return bool(predicate(event))
    from evaluators.jsonutil import subset_mismatches

    data = {**event.extra, **event.to_dict(), "ok": event.ok}
    return not subset_mismatches(predicate, data)


def trace_contains(event_type: str | None = None,
                   predicate: Callable[[TraceEvent], bool] | dict | None = None, *,
                   min_count: int = 1) -> SessionCheck:
    """At least ``min_count`` events of ``event_type`` (any type when None) match."""

    def evaluate(output: Any, expected: Any, session: SessionView | None = None) -> Score:
        view = _view(session)
        pool = view.of_type(event_type) if event_type else view.events
        found = sum(1 for e in pool if event_matches(e, predicate))
        kind = f"'{event_type}' events" if event_type else "events"
        return passed_score(found >= min_count, f"{found} matching {kind} (need >= {min_count})"
                                                f"{_no_trace(view)}")
    evaluate.__name__ = "trace_contains"
    return evaluate
