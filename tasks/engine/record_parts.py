"""Parts of a case's record: the error text, the evaluators' joined reasoning, the usage
(cost 0 when cached) and the prompt/trace dump files written for it."""
from __future__ import annotations

from typing import Any

from agentv.evaluators.base import EvaluatorResult
from agentv.providers.base import ProviderError, Response


def error_message(err: BaseException) -> str:
    """AgentV's error text: a provider's message as is; any other exception (a bug in a
    callable target, say) keeps its type name."""
    if isinstance(err, ProviderError):
        return str(err) or type(err).__name__
    return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__


def joined_reasoning(results: list[EvaluatorResult]) -> str:
    parts = [(r.name, r.reasoning) for r in results if r.reasoning]
    if len(parts) == 1:
        return parts[0][1]
    return " | ".join(f"{n}: {text}" for n, text in parts)


def record_usage(response: Response) -> dict[str, Any] | None:
    if response.usage is None:
        return None
    usage = response.usage.to_dict()
    if response.cached:
        usage["cost_usd"] = 0.0
    return usage


def with_dumps(record: dict[str, Any], dumps: dict[str, Any]) -> dict[str, Any]:
    """``dump_files``: the prompt and trace dumps written for this case (with --dump-*)."""
    if dumps:
        record["dump_files"] = {k: [p for p in v if p] if isinstance(v, list) else v
                                for k, v in dumps.items()}
    return record
