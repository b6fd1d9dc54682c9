"""The categorical LLM judge (seed 002 "LLM-as-Judge"): a label, not a number.

The judge must answer ``{"rating": "<label>", "reason": "..."}`` with one of
excellent / good / fair / poor / wrong (→ 1.0 / 0.75 / 0.5 / 0.25 / 0.0); it passes on
excellent or good. Anything else breaks the contract: the score is 0 and the reply is
kept. ``categorical_judge(judge, criterion)`` is the typed-API factory (seed 002's
``llm_judge``); the YAML evaluator is ``type: categorical_judge``.
"""
from __future__ import annotations

from typing import Any

from evaluators.score import PASSING_RATINGS, RATING_VALUES, Score
from providers.base import Request
from providers.secrets import cut

DEFAULT_CRITERION = "The output fully and correctly accomplishes the task."

SYSTEM_PROMPT = """You are an evaluation judge. Respond with a single JSON object and nothing else:

{"rating": "<one of: excellent, good, fair, poor, wrong>", "reason": "<brief explanation, 1-2 sentences>"}"""

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
    from evaluators.llm_judge import render_template

    return render_template(template or TEMPLATE, {
        "criterion": criterion, "question": question or "(not given)",
        "output": _text(output), "expected": _text(expected) or "(none)",
        "candidate_answer": _text(output), "reference_answer": _text(expected)})


def parse_rating(reply: str) -> tuple[str | None, str]:
    """(rating, reason); rating is None when the reply breaks the output contract."""
    from evaluators.jsonutil import first_json_object

    data = first_json_object(reply or "")
    if not data or not isinstance(data.get("rating"), str):
        return None, ""
    rating = data["rating"].strip().lower()
    reason = data.get("reason", data.get("reasoning", ""))
    return (rating if rating in RATING_VALUES else None), (reason if isinstance(reason, str)
                                                           else "")


def rating_score(rating: str, reason: str) -> Score:
    return Score(value=RATING_VALUES[rating], passed=rating in PASSING_RATINGS,
                 reason=f"{rating}: {reason}" if reason else rating)


def judge_request(eval_id: str, prompt: str) -> Request:
    return Request(eval_id=eval_id, question=prompt, system_prompt=SYSTEM_PROMPT,
                   chat=[{"role": "system", "content": SYSTEM_PROMPT},
                         {"role": "user", "content": prompt}],
                   purpose="judge", response_format="json")


class CategoricalJudgeFn:
    """The typed categorical judge ``(output, expected) -> Score``. Its provider is called on
    one background event loop (``LoopThread``): every call reuses one HTTP session, also when
    called from inside a running loop. ``close()`` (or leaving ``with judge:``) closes the
    provider's sessions and stops the loop; otherwise that happens at exit."""

    def __init__(self, judge: Any, criterion: str) -> None:
        self.judge, self.criterion = judge, criterion
        self.__name__ = "categorical_judge"
        from providers.loop_thread import LoopThread  # asyncio: only when a judge is built
        self._loop = LoopThread(on_close=getattr(judge, "aclose", None))

    def __call__(self, output: Any, expected: Any) -> Score:
        prompt = build_prompt(self.criterion, output, expected)
        request = judge_request("categorical_judge", prompt)
        response = self._loop.run(lambda: self.judge.invoke(request))
        rating, reason = parse_rating(response.text)
        if rating is None:
            return Score(value=0.0, passed=False,
                         reason="judge reply broke the rating contract: "
                                f"{cut(response.text, 200)!r}")
        return rating_score(rating, reason)

    def close(self) -> None:
        self._loop.close()

    def __enter__(self) -> "CategoricalJudgeFn":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def categorical_judge(judge: Any, criterion: str = DEFAULT_CRITERION) -> CategoricalJudgeFn:
    """Typed evaluator: ``judge`` is a provider (``await judge.invoke(Request)``). A judge
    target by name: ``tasks.evals.categorical_judge(target="name")`` / ``llm_judge``."""
    if isinstance(judge, str) or not callable(getattr(judge, "invoke", None)):
        raise TypeError("categorical_judge here takes a provider; for a target in targets.yaml "
                        "use tasks.evals.categorical_judge(target=...) or llm_judge(target, ...)")
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
