"""A Python callable as the target of the typed API, and the typed evaluators around it.

``fn(sample.input) -> output`` (sync or async). To give session-aware evaluators a trace,
the callable returns ``TracedOutput(output, trace=[...], usage=Usage(...), slices=[...])``:
``trace`` items are ``ToolInvoked``/``PromptExecuted``/``TraceEvent`` objects or dicts such
as ``{"tool": "search", "input": {...}, "output": ..., "ok": True}``; ``slices`` are custom
objects read with ``session[MyType]`` / ``slice_contains``. Evaluators see the typed output;
targets, judges and records see its text (``as_text``).
"""
from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import inspect
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from agentv.evaluators.session import session_from_context
from agentv.providers.base import BaseProvider, ConfigError, Request, Response, Target, Usage
from agentv.providers.trace import TraceEvent, events_from_dicts
from agentv.tasks.api.dataset import as_text


@dataclass(frozen=True)
class TracedOutput:
    """What a callable target returns when evaluators should see how it got its answer."""

    output: Any
    trace: tuple[TraceEvent | dict[str, Any], ...] | list[Any] = ()
    usage: Usage | None = None
    slices: tuple[Any, ...] | list[Any] = field(default=())


class CallableProvider(BaseProvider):
    """A Python function as the target. ``inputs`` maps a case id to its typed input; the
    typed outputs and custom slices are kept per (case id, trial) for the evaluators."""

    kind = "python"

    def __init__(self, target: Target, fn: Callable[[Any], Any], inputs: dict[str, Any]):
        super().__init__(target)
        self.fn, self.inputs = _as_callable(fn), inputs
        self.outputs: dict[tuple[str, int], Any] = {}
        self.slices: dict[tuple[str, int], tuple[Any, ...]] = {}

    async def invoke(self, request: Request) -> Response:
        started = time.perf_counter()
        value = self.inputs[request.eval_id]
        if inspect.iscoroutinefunction(self.fn):
            output = await self.fn(value)
        else:
            output = await in_daemon_thread(self.fn, value)
        key = (request.eval_id, request.trial)
        if isinstance(output, Response):
            self.outputs[key] = output.text
            return output
        trace, usage = None, None
        if isinstance(output, TracedOutput):
            trace, usage = events_from_dicts(list(output.trace)), output.usage
            self.slices[key] = tuple(output.slices)
            output = output.output
        self.outputs[key] = output
        return Response(text=as_text(output), trace=trace, usage=usage,
                        latency_ms=(time.perf_counter() - started) * 1000)

    def forget(self, eval_id: str, trial: int = 0) -> None:
        """Drop what was kept for one case (long-running workers)."""
        self.outputs.pop((eval_id, trial), None)
        self.slices.pop((eval_id, trial), None)
        self.inputs.pop(eval_id, None)


async def in_daemon_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` on a daemon thread of its own, in this context (as ``asyncio.to_thread``):
    a user's function that never returns (a sample released by a second SIGTERM) does not
    hold the process's exit."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future = loop.create_future()
    context = contextvars.copy_context()

    def settle(result: Any, err: BaseException | None) -> None:
        if not done.done():
            done.set_exception(err) if err is not None else done.set_result(result)

    def work() -> None:
        result, err = None, None
        try:
            result = context.run(fn, *args)
        except BaseException as caught:  # noqa: BLE001 - raised in the awaiting task
            err = caught
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits
            loop.call_soon_threadsafe(settle, result, err)
    threading.Thread(target=work, name="agentv-target", daemon=True).start()
    return await done


def _as_callable(target: Any) -> Callable[[Any], Any]:
    """A callable, or an object with ``execute(input)`` (the seed's MainLoop shape)."""
    execute = getattr(target, "execute", None)
    return target if callable(target) and execute is None else (execute or target)


def is_callable_target(target: Any) -> bool:
    return not isinstance(target, (str, Target)) and (
        callable(target) or callable(getattr(target, "execute", None)))


def callable_name(fn: Any) -> str:
    name = getattr(fn, "__name__", "") or type(fn).__name__
    return name if name.isidentifier() else "python"


def typed_evaluators(evaluator: Any, expected_of: Callable[[str], Any],
                     provider: CallableProvider | None) -> list[Any]:
    """Typed functions (or agentv ``Evaluator``s) as the case's evaluators: each function
    sees the typed output, the sample's typed expected value and the session."""
    from agentv.evaluators.base import Evaluator
    from agentv.evaluators.python_eval import PythonEvaluator

    def output_of(ctx):
        if provider is None:
            return ctx.candidate_answer
        return provider.outputs.get((ctx.eval_id, ctx.trial), ctx.candidate_answer)

    def session_of(ctx):
        view = session_from_context(ctx)
        if provider is None:
            return view
        return dataclasses.replace(view, slices=provider.slices.get((ctx.eval_id, ctx.trial), ()))

    items = evaluator if isinstance(evaluator, (list, tuple)) else [evaluator]
    built = [e if isinstance(e, Evaluator) else PythonEvaluator.from_function(
        e, output_of=output_of, expected_of=lambda ctx: expected_of(ctx.eval_id),
        session_of=session_of) for e in items]
    if not built:
        raise ConfigError("the typed API needs at least one evaluator", None, "evaluator")
    seen: dict[str, int] = {}
    for e in built:  # unique names, as build_evaluators gives YAML members
        seen[e.label] = seen.get(e.label, 0) + 1
        if seen[e.label] > 1:
            e.name = f"{e.label}_{seen[e.label]}"
    return built
