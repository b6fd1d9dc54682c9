"""Session-aware typed evaluators (seed 002): assertions on how the target got its answer.

Each factory returns ``(output, expected, session) -> Score``. ``session`` is a
``SessionView`` — or anything indexable by slice type the seed's way
(``session[ToolInvoked].all()``), such as a test's mock; ``None`` counts as a target that
reported no trace.
"""
from __future__ import annotations

from typing import Any, Callable

from agentv.evaluators.score import Score, passed_score, session_aware
from agentv.evaluators.session import EMPTY_SESSION, SessionView
from agentv.evaluators.slices import PromptExecuted, ToolInvoked
from agentv.providers.trace import TraceEvent

SessionCheck = Callable[[Any, Any, Any], Score]


def _view(session: Any) -> Any:
    return EMPTY_SESSION if session is None else session


def _no_trace(view: Any) -> str:
    missing = isinstance(view, SessionView) and not view.has_trace
    return " (the target reported no trace)" if missing else ""


def _calls(view: Any, name: str | None = None) -> tuple[Any, ...]:
    return tuple(c for c in view[ToolInvoked].all() if name is None or c.name == name)


def _check(name: str, body: Callable[[Any], Score]) -> SessionCheck:
    def evaluate(output: Any, expected: Any, session: Any = None) -> Score:
        return body(_view(session))
    evaluate.__name__ = name
    return session_aware(evaluate)


def tool_called(name: str) -> SessionCheck:
    """The tool was called at least once."""
    def body(view: Any) -> Score:
        count = len(_calls(view, name))
        return passed_score(count > 0, f"tool '{name}' called {count} time(s){_no_trace(view)}")
    return _check("tool_called", body)


def tool_not_called(name: str) -> SessionCheck:
    """The tool was never called."""
    def body(view: Any) -> Score:
        count = len(_calls(view, name))
        return passed_score(count == 0, f"tool '{name}' called {count} time(s){_no_trace(view)}")
    return _check("tool_not_called", body)


def tool_call_count(name: str, min_count: int = 0, max_count: int | None = None
                    ) -> SessionCheck:
    """The tool's call count is within ``[min_count, max_count]`` (inclusive; None: no limit)."""
    if min_count < 0 or (max_count is not None and max_count < min_count):
        raise ValueError(f"invalid bounds: min {min_count}, max {max_count}")
    bounds = f">= {min_count}" if max_count is None else f"{min_count}-{max_count}"

    def body(view: Any) -> Score:
        count = len(_calls(view, name))
        passed = count >= min_count and (max_count is None or count <= max_count)
        return passed_score(passed, f"tool '{name}' called {count} time(s) (expected {bounds})"
                                    f"{_no_trace(view)}")
    return _check("tool_call_count", body)


def tool_failed(event: Any) -> bool:
    result = getattr(event, "result", None)
    return getattr(event, "ok", True) is False or (
        isinstance(result, dict) and result.get("success") is False)


def all_tools_succeeded() -> SessionCheck:
    """No tool call failed (``ok: false``, an error status, or a result with success=false)."""
    def body(view: Any) -> Score:
        calls = _calls(view)
        failed = [c.name or "unknown" for c in calls if tool_failed(c)]
        if failed:
            return passed_score(False, f"failed tools: {', '.join(failed)}")
        return passed_score(True, f"{len(calls)} tool call(s), none failed{_no_trace(view)}")
    return _check("all_tools_succeeded", body)


def _total_tokens(view: Any) -> int | None:
    if isinstance(view, SessionView):
        return view.total_tokens
    calls = view[PromptExecuted].all()
    counts = [(getattr(c, "input_tokens", None) or 0) + (getattr(c, "output_tokens", None) or 0)
              for c in calls]
    return sum(counts) if calls else None


def token_usage_under(max_tokens: int) -> SessionCheck:
    """Total tokens (input + output) are at most ``max_tokens``."""
    def body(view: Any) -> Score:
        total = _total_tokens(view)
        if total is None:
            return passed_score(False, "no token usage reported")
        return passed_score(total <= max_tokens, f"used {total} tokens (limit: {max_tokens})")
    return _check("token_usage_under", body)


def slice_contains(slice_type: type, predicate: Callable[[Any], bool], min_count: int = 1
                   ) -> SessionCheck:
    """At least ``min_count`` items of the slice ``slice_type`` match ``predicate``
    (``ToolInvoked``, ``PromptExecuted``, or a custom type the target returned)."""
    label = getattr(slice_type, "__name__", str(slice_type))

    def body(view: Any) -> Score:
        found = len(view[slice_type].where(predicate))
        return passed_score(found >= min_count, f"found {found} matching {label} item(s) "
                                                f"(need >= {min_count}){_no_trace(view)}")
    return _check("slice_contains", body)


def event_matches(event: TraceEvent, predicate: Callable[[TraceEvent], bool] | dict | None
                  ) -> bool:
    """A callable predicate, or a mapping every field of which the event's dict contains."""
    if predicate is None:
        return True
    if callable(predicate):
        return bool(predicate(event))
    from agentv.evaluators.jsonutil import subset_mismatches

    data = {**event.extra, **event.to_dict(), "ok": event.ok}
    return not subset_mismatches(predicate, data)


def trace_contains(event_type: str | None = None,
                   predicate: Callable[[TraceEvent], bool] | dict | None = None, *,
                   min_count: int = 1) -> SessionCheck:
    """At least ``min_count`` events of ``event_type`` (any type when None) match."""
    def body(view: Any) -> Score:
        view = view if isinstance(view, SessionView) else EMPTY_SESSION
        pool = view.of_type(event_type) if event_type else view.events
        found = sum(1 for e in pool if event_matches(e, predicate))
        kind = f"'{event_type}' events" if event_type else "events"
        return passed_score(found >= min_count, f"{found} matching {kind} (need >= {min_count})"
                                                f"{_no_trace(view)}")
    return _check("trace_contains", body)
