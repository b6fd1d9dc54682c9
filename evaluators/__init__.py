"""agentv evaluators: the YAML evaluator catalogue and the typed Python eval API.

Typed API (seed 002) — plain functions returning ``Score``::

    from agentv.evaluators import Score, exact_match, contains, all_of, any_of, tool_called
    check = all_of(exact_match, tool_called("search"), token_usage_under(5000))
    check("Paris", "Paris", session)  # -> Score(value=..., passed=..., reason=...)

Judges by target name, mailboxes and the EvalLoop live one layer up (``agentv``);
users import all of them from ``agentv``.

Only light, dependency-free modules are imported here (no pydantic, subprocess,
Prefect or litellm); the YAML evaluator classes load lazily through
``agentv.evaluators.registry``.
"""
from agentv.evaluators.functions import (
                                  adapt,
                                  all_of,
                                  any_of,
                                  contains,
                                  exact_match,
                                  is_json,
                                  is_session_aware,
                                  json_subset,
                                  regex,
                                  within_tolerance,
)
from agentv.evaluators.rating import categorical_judge
from agentv.evaluators.report import EvalReport, EvalResult
from agentv.evaluators.score import PASSING_RATINGS, RATING_VALUES, Score
from agentv.evaluators.session import SessionView
from agentv.evaluators.session_checks import (
                                  all_tools_succeeded,
                                  slice_contains,
                                  token_usage_under,
                                  tool_call_count,
                                  tool_called,
                                  tool_not_called,
                                  trace_contains,
)
from agentv.evaluators.slices import PromptExecuted, SliceView, ToolInvoked

__all__ = [
    "EvalReport", "EvalResult", "PASSING_RATINGS", "PromptExecuted", "RATING_VALUES", "Score",
    "SessionView", "SliceView", "ToolInvoked", "adapt", "all_of", "all_tools_succeeded",
    "any_of", "categorical_judge", "contains", "exact_match", "is_json", "is_session_aware",
    "json_subset", "regex", "slice_contains", "token_usage_under", "tool_call_count",
    "tool_called", "tool_not_called", "trace_contains", "within_tolerance",
]
