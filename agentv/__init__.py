"""agentv: an evaluation framework for AI agents and LLM apps, on Prefect 3.

The public API, as inspect_ai and pydantic-evals have it::

    from agentv import Dataset, Sample, Score, exact_match, run_dataset, load_results
    report = run_dataset(Dataset.from_jsonl("qa.jsonl"), my_agent, exact_match)

Typed evaluator functions and combinators are also at ``agentv.evaluators``; the command line
is ``agentv`` (or ``python -m agentv``). Names load on first use (PEP 562), so ``import
agentv`` and ``agentv --help`` import neither Prefect nor litellm.

The repository keeps its folders at the top (``flows/ tasks/ providers/ evaluators/
deployments/``); installed, they are the subpackages ``agentv.flows``, ``agentv.tasks``, …
"""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

# public name -> the module that defines it
_EVALUATORS = ("EvalReport", "EvalResult", "PromptExecuted", "Score", "SessionView", "SliceView",
               "ToolInvoked", "adapt", "all_of", "all_tools_succeeded", "any_of", "contains",
               "exact_match", "is_json", "is_session_aware", "json_subset", "regex",
               "slice_contains", "token_usage_under", "tool_call_count", "tool_called",
               "tool_not_called", "trace_contains", "within_tolerance")
_SOURCES: dict[str, str] = {
    **{name: "agentv.evaluators" for name in _EVALUATORS},
    "Usage": "agentv.providers.base",
    "TracedOutput": "agentv.tasks.api.callable_target",
    "Dataset": "agentv.tasks.api.dataset", "Sample": "agentv.tasks.api.dataset",
    "MailboxClient": "agentv.tasks.api.eval_client",
    "collect_results": "agentv.tasks.api.eval_client",
    "open_mailbox": "agentv.tasks.api.eval_client",
    "request_mailbox": "agentv.tasks.api.eval_client",
    "result_mailbox": "agentv.tasks.api.eval_client",
    "submit_dataset": "agentv.tasks.api.eval_client",
    "EvalLoop": "agentv.tasks.api.evalloop", "EvalProgram": "agentv.tasks.api.evalloop",
    "InMemoryMailbox": "agentv.tasks.api.mailbox", "Mailbox": "agentv.tasks.api.mailbox",
    "Message": "agentv.tasks.api.mailbox",
    "EvalRequest": "agentv.tasks.api.mailbox_codec",
    "EvalRequestCodec": "agentv.tasks.api.mailbox_codec",
    "EvalResultCodec": "agentv.tasks.api.mailbox_codec",
    "JsonCodec": "agentv.tasks.api.mailbox_codec",
    "RedisMailbox": "agentv.tasks.api.mailbox_redis",
    "categorical_judge": "agentv.tasks.api.typed_targets",
    "llm_judge": "agentv.tasks.api.typed_targets",
    "evaluate": "agentv.flows.dataset", "run_dataset": "agentv.flows.dataset",
    "run_eval": "agentv.flows.launch",
    "load_results": "agentv.tasks.results.frames",
    "load_evaluators": "agentv.tasks.results.tidy",
}

__all__ = [  # every public name (tests/test_public_api.py: sorted(_SOURCES))
    "Dataset", "EvalLoop", "EvalProgram", "EvalReport", "EvalRequest", "EvalRequestCodec",
    "EvalResult", "EvalResultCodec", "InMemoryMailbox", "JsonCodec", "Mailbox", "MailboxClient",
    "Message", "PromptExecuted", "RedisMailbox", "Sample", "Score", "SessionView", "SliceView",
    "ToolInvoked", "TracedOutput", "Usage", "adapt", "all_of", "all_tools_succeeded", "any_of",
    "categorical_judge", "collect_results", "contains", "evaluate", "exact_match", "is_json",
    "is_session_aware", "json_subset", "llm_judge", "load_evaluators", "load_results",
    "open_mailbox", "regex", "request_mailbox", "result_mailbox", "run_dataset", "run_eval",
    "slice_contains", "submit_dataset", "token_usage_under", "tool_call_count", "tool_called",
    "tool_not_called", "trace_contains", "within_tolerance",
]

if TYPE_CHECKING:  # what a type checker and an IDE see; at run time __getattr__ loads them
    from agentv.evaluators import (
        EvalReport,
        EvalResult,
        PromptExecuted,
        Score,
        SessionView,
        SliceView,
        ToolInvoked,
        adapt,
        all_of,
        all_tools_succeeded,
        any_of,
        contains,
        exact_match,
        is_json,
        is_session_aware,
        json_subset,
        regex,
        slice_contains,
        token_usage_under,
        tool_call_count,
        tool_called,
        tool_not_called,
        trace_contains,
        within_tolerance,
    )
    from agentv.flows.dataset import evaluate, run_dataset
    from agentv.flows.launch import run_eval
    from agentv.providers.base import Usage
    from agentv.tasks.api.callable_target import TracedOutput
    from agentv.tasks.api.dataset import Dataset, Sample
    from agentv.tasks.api.eval_client import (
        MailboxClient,
        collect_results,
        open_mailbox,
        request_mailbox,
        result_mailbox,
        submit_dataset,
    )
    from agentv.tasks.api.evalloop import EvalLoop, EvalProgram
    from agentv.tasks.api.mailbox import InMemoryMailbox, Mailbox, Message
    from agentv.tasks.api.mailbox_codec import (
        EvalRequest,
        EvalRequestCodec,
        EvalResultCodec,
        JsonCodec,
    )
    from agentv.tasks.api.mailbox_redis import RedisMailbox
    from agentv.tasks.api.typed_targets import categorical_judge, llm_judge
    from agentv.tasks.results.frames import load_results
    from agentv.tasks.results.tidy import load_evaluators


def __getattr__(name: str) -> Any:
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module 'agentv' has no attribute {name!r}")
    value = getattr(import_module(source), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
