"""The categorical LLM judge (seed 002 "LLM-as-Judge"): a label, not a number.

The judge must answer ``{"rating": "<label>", "reason": "..."}`` with one of
excellent / good / fair / poor / wrong (→ 1.0 / 0.75 / 0.5 / 0.25 / 0.0); it passes on
excellent or good. Anything else breaks the contract: it is asked again once, then the
judge failed (``evaluators.judge_call.JudgeError``). ``categorical_judge(judge, criterion)``
is the typed-API factory (seed 002's ``llm_judge``); the YAML evaluator is
``type: categorical_judge``.
"""
from __future__ import annotations

import threading
import weakref
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from agentv.evaluators.score import PASSING_RATINGS, RATING_VALUES, Score
from agentv.providers.base import JudgeInputs

if TYPE_CHECKING:  # anyio is imported when a judge first calls
    from anyio.from_thread import BlockingPortal

DEFAULT_CRITERION = "The output fully and correctly accomplishes the task."

SYSTEM_PROMPT = """You are an evaluation judge. Respond with a single JSON object and nothing else:

{"rating": "<one of: excellent, good, fair, poor, wrong>", "reason": "<brief explanation, 1-2 sentences>"}"""
CONTRACT = ('a JSON object {"rating": "<excellent|good|fair|poor|wrong>", '
            '"reason": "..."}')

TEMPLATE = """Rate the output on the given criterion.

## Criterion
{{ criterion }}

## Task
{{ question }}

## Output to Evaluate
{{ output }}

## Reference Answer
{{ expected }}

## Rating Scale
- excellent: fully meets the criterion
- good: meets the criterion with minor issues
- fair: partially meets the criterion
- poor: mostly fails the criterion
- wrong: completely fails the criterion

Select one rating and explain your reasoning briefly."""


def build_prompt(criterion: str, output: Any, expected: Any, question: str = "",
                 template: str | None = None) -> str:
    from agentv.evaluators.llm_judge import render_template

    return render_template(template or TEMPLATE, {
        "criterion": criterion, "question": question or "(not given)",
        "output": _text(output), "expected": _text(expected) or "(none)",
        "candidate_answer": _text(output), "reference_answer": _text(expected)})


def parse_rating(reply: str) -> tuple[str | None, str]:
    """(rating, reason); rating is None when the reply breaks the output contract."""
    from agentv.evaluators.jsonutil import first_json_object

    data = first_json_object(reply or "")
    if not data or not isinstance(data.get("rating"), str):
        return None, ""
    rating = data["rating"].strip().lower()
    reason = data.get("reason", data.get("reasoning", ""))
    return (rating if rating in RATING_VALUES else None), (reason if isinstance(reason, str)
                                                           else "")


def rating_of(reply: str) -> tuple[str, str] | None:
    """(rating, reason); None when the reply breaks the output contract."""
    rating, reason = parse_rating(reply)
    return None if rating is None else (rating, reason)


def rating_score(rating: str, reason: str) -> Score:
    return Score(value=RATING_VALUES[rating], passed=rating in PASSING_RATINGS,
                 reason=f"{rating}: {reason}" if reason else rating)


class CategoricalJudgeFn:
    """The typed categorical judge ``(output, expected) -> Score``, asking through the one
    judge call (retries, one re-ask, ``JudgeError``). Its provider is called through one
    anyio blocking portal (an event loop on a thread, started at the first call): every
    call reuses one HTTP session, also when called from inside a running loop, and runs in
    the caller's context (it scrubs with the caller's secret registry). ``close()`` (or
    leaving ``with judge:``) closes the provider's sessions and stops the portal (a later
    call starts a new one); otherwise that happens when the judge is collected, or at exit."""

    def __init__(self, judge: Any, criterion: str) -> None:
        self.judge, self.criterion = judge, criterion
        self.__name__ = "categorical_judge"
        self._lock = threading.Lock()
        self._portal: BlockingPortal | None = None
        self._stop: weakref.finalize | None = None

    def __call__(self, output: Any, expected: Any) -> Score:
        from agentv.evaluators.judge_call import JudgeAsk, call_judge, judge_request

        prompt = build_prompt(self.criterion, output, expected)
        ask = JudgeAsk(SYSTEM_PROMPT, prompt, CONTRACT, JudgeInputs(
            _text(output), reference_answer=_text(expected), criterion=self.criterion))
        request = judge_request("categorical_judge", ask)
        reply = self._started().call(lambda: call_judge(  # in the caller's context
            self.judge, request, rating_of, CONTRACT,
            {"user_prompt": prompt, "system_prompt": SYSTEM_PROMPT}))
        return rating_score(*reply.verdict)

    def _started(self) -> BlockingPortal:
        with self._lock:
            if self._portal is None:
                from anyio.from_thread import start_blocking_portal
                opened = start_blocking_portal(name="agentv-judge")
                self._portal = opened.__enter__()
                # must not reference self: it runs when self is collected, or at exit
                self._stop = weakref.finalize(self, _stop_portal, opened, self._portal,
                                              getattr(self.judge, "aclose", None))
            return self._portal

    def close(self) -> None:
        with self._lock:
            stop, self._stop, self._portal = self._stop, None, None
        if stop is not None:
            stop()

    def __enter__(self) -> "CategoricalJudgeFn":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _stop_portal(opened: AbstractContextManager[Any], portal: BlockingPortal,
                 on_close: Callable[[], Awaitable[Any]] | None) -> None:
    """Close the judge's resources on the portal's loop, then stop the portal."""
    if on_close is not None:
        try:
            portal.call(on_close)
        except Exception:  # noqa: BLE001 - closing is best effort; the portal stops anyway
            pass
    opened.__exit__(None, None, None)


def categorical_judge(judge: Any, criterion: str = DEFAULT_CRITERION) -> CategoricalJudgeFn:
    """Typed evaluator: ``judge`` is a provider (``await judge.invoke(Request)``). A judge
    target by name: ``agentv.categorical_judge(target="name")`` / ``llm_judge``."""
    if isinstance(judge, str) or not callable(getattr(judge, "invoke", None)):
        raise TypeError("categorical_judge here takes a provider; for a target in targets.yaml "
                        "use agentv.categorical_judge(target=...) or llm_judge(target, ...)")
    return CategoricalJudgeFn(judge, criterion)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    import json

    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)
