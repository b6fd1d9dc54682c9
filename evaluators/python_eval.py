"""``type: python, callable: module:function``: a typed Python evaluator in a YAML suite.

The function is ``(output, expected) -> Score`` or ``(output, expected, session) ->
Score`` (``session`` is the case's ``SessionView``); it may be async, and may return a
``Score``, a bool, a number, a ``{score, reason}`` mapping or an ``EvaluatorResult``.
With ``args``/``kwargs`` the callable is a factory called once at load time (e.g.
``callable: evaluators:within_tolerance``, ``args: [0.5]``). ``output`` is the
candidate answer; ``expected`` is the case's expected answer. The eval file's folder is
importable, so a ``checks.py`` beside the suite works. A callable that cannot be
imported is a configuration error.
"""
from __future__ import annotations

import asyncio
import importlib
import inspect
import sys
from typing import Any, Callable

from pydantic import Field, PrivateAttr, model_validator

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult
from agentv.evaluators.functions import is_session_aware
from agentv.evaluators.jsonutil import MISSING
from agentv.evaluators.score import as_score
from agentv.evaluators.scored import case_expected, score_result
from agentv.evaluators.session import session_from_context


def load_callable(spec: str, base_dir: str = ".") -> Callable[..., Any]:
    module_name, _, attr_path = spec.partition(":")
    if not module_name or not attr_path:
        raise ValueError(f"callable must look like 'module:function', got {spec!r}")
    if base_dir not in sys.path:
        sys.path.append(base_dir)
    try:
        target: Any = importlib.import_module(module_name)
        for part in attr_path.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError, SyntaxError) as err:
        raise ValueError(f"cannot import {spec!r}: {type(err).__name__}: {err}") from None
    if not callable(target):
        raise ValueError(f"{spec!r} is not callable")
    return target


class PythonEvaluator(Evaluator):
    """A typed Python evaluator `callable: module:function` (with `args`/`kwargs`: a factory);
    see the typed API below."""
    kind = "python"
    callable_: str = Field(alias="callable")
    args: list[Any] = Field(default_factory=list)
    kwargs: dict[str, Any] = Field(default_factory=dict)
    _fn: Callable[..., Any] | None = PrivateAttr(default=None)
    _output_of: Callable[[EvalContext], Any] | None = PrivateAttr(default=None)
    _expected_of: Callable[[EvalContext], Any] | None = PrivateAttr(default=None)
    _session_of: Callable[[EvalContext], Any] | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _load(self) -> "PythonEvaluator":
        if self._fn is None:
            fn = load_callable(self.callable_, self.base_dir)
            if self.args or self.kwargs:
                fn = fn(*self.args, **self.kwargs)
                if not callable(fn):
                    raise ValueError(f"{self.callable_}(...) did not return a callable")
            self._fn = fn
        return self

    @classmethod
    def from_function(cls, fn: Callable[..., Any], *, name: str | None = None,
                      weight: float = 1.0,
                      output_of: Callable[[EvalContext], Any] | None = None,
                      expected_of: Callable[[EvalContext], Any] | None = None,
                      session_of: Callable[[EvalContext], Any] | None = None
                      ) -> "PythonEvaluator":
        """Wrap an in-memory function (typed API); ``output_of`` / ``expected_of`` pick the
        values it scores (default: the candidate answer and the case's expected answer)."""
        label = name or getattr(fn, "__name__", "python")
        spec = f"{getattr(fn, '__module__', None) or 'builtins'}:{label}"
        evaluator = cls.model_construct(name=label, type="python", weight=weight,
                                        callable_=spec)
        evaluator._fn, evaluator._output_of, evaluator._expected_of = fn, output_of, expected_of
        evaluator._session_of = session_of
        return evaluator

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        fn = self._fn
        if fn is None:  # set by _load or from_function
            raise RuntimeError(f"{self.callable_} was never loaded")
        output = self._output_of(ctx) if self._output_of else ctx.candidate_answer
        expected = self._expected_of(ctx) if self._expected_of else case_expected(ctx)
        call_args = [output, None if expected is MISSING else expected]
        if is_session_aware(fn):
            call_args.append(self._session_of(ctx) if self._session_of
                             else session_from_context(ctx))
        if inspect.iscoroutinefunction(fn):
            value = await fn(*call_args)
        else:
            value = await asyncio.to_thread(fn, *call_args)
            if inspect.isawaitable(value):
                value = await value
        if isinstance(value, EvaluatorResult):
            value.name, value.weight = self.label, self.weight
            return value
        return score_result(self, as_score(value))
