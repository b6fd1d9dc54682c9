"""The typed eval API (seed 002); users import it from the package top (``agentv``)::

    from agentv import (Dataset, EvalLoop, all_of, collect_results, exact_match,
                        llm_judge, request_mailbox, result_mailbox, submit_dataset)

Data (``Sample``, ``Dataset``, ``Score``, ``EvalResult``, ``EvalReport``), evaluators and
combinators (``evaluators``), judges built from targets.yaml by name (``llm_judge``,
``categorical_judge``), callable targets with a trace (``TracedOutput``), one-call runs
through the Prefect flow (``run_dataset``), and the distributed mode: ``Mailbox``
(in-memory, Redis), ``MailboxClient``, ``EvalRequest``, ``EvalLoop``, ``submit_dataset``,
``collect_results``.
Prefect is not imported here.
"""
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
from agentv.flows.dataset import (  # runs the flow: the facade's one upward import
                        evaluate,
                        run_dataset,
)
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
from agentv.tasks.api.mailbox_codec import EvalRequest, EvalRequestCodec, EvalResultCodec, JsonCodec
from agentv.tasks.api.mailbox_redis import RedisMailbox
from agentv.tasks.api.typed_targets import categorical_judge, llm_judge

__all__ = [
    "Dataset", "EvalLoop", "EvalProgram", "EvalReport", "EvalRequest", "EvalRequestCodec",
    "EvalResult", "EvalResultCodec", "InMemoryMailbox", "JsonCodec", "Mailbox", "MailboxClient",
    "Message",
    "PromptExecuted", "RedisMailbox", "Sample", "Score", "SessionView", "SliceView",
    "ToolInvoked", "TracedOutput", "Usage", "adapt", "all_of", "all_tools_succeeded", "any_of",
    "categorical_judge", "collect_results", "contains", "evaluate", "exact_match", "is_json",
    "is_session_aware", "json_subset", "llm_judge", "open_mailbox", "regex", "request_mailbox",
    "result_mailbox", "run_dataset", "slice_contains", "submit_dataset", "token_usage_under",
    "tool_call_count", "tool_called", "tool_not_called", "trace_contains", "within_tolerance",
]
