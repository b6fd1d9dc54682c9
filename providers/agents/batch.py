"""Provider batching: all cases as JSONL in, JSONL answers keyed by ``id`` out.

Each input line is ``{id, question, guideline_paths, input_files, attempt, trial,
input_messages?}``; each output line an object with ``id`` plus the single-case output
convention (``text``/``output_messages``/``trace``/``token_usage``/``cost_usd``/
``duration_ms``). With trials, a line may carry ``trial`` to say which one it answers.
A case with no answer line gets its own error (AgentV: ``Batch output missing id '<id>'``);
output with no usable line at all fails the whole batch.
"""
from __future__ import annotations

import json
import logging
from typing import Any

from agentv.providers.agents.output import from_object
from agentv.providers.base import ProviderError, Request, Response

log = logging.getLogger("agentv.batch")


def batch_input(requests: list[Request]) -> str:
    lines = []
    for r in requests:
        line: dict[str, Any] = {"id": r.eval_id, "question": r.question,
                                "guideline_paths": r.guideline_paths,
                                "input_files": r.input_files, "attempt": r.attempt,
                                "trial": r.trial}
        if r.input_messages is not None:
            line["input_messages"] = r.input_messages
        lines.append(json.dumps(line, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def parse_batch_output(text: str, target: str) -> dict[tuple[str, int | None], dict[str, Any]]:
    """Answer objects by (id, trial-or-None). Lines that are not JSON objects with a string
    ``id`` are skipped with a warning; none usable at all fails the batch."""
    records: dict[tuple[str, int | None], dict[str, Any]] = {}
    bad = 0
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        if not isinstance(obj, dict) or not isinstance(obj.get("id"), str) or not obj["id"]:
            bad += 1
            log.warning("target %s: batch output line %d is not a JSON object with an 'id' "
                        "(skipped)", target, n)
            continue
        trial = obj.get("trial") if isinstance(obj.get("trial"), int) else None
        records[(obj["id"], trial)] = obj
    if not records:
        raise ProviderError(f"batch output has no JSONL answer lines ({bad} unusable line(s))",
                            details={"output": text[-2000:]})
    return records


def map_answers(requests: list[Request], records: dict, latency_ms: float,
                raw: dict[str, Any]) -> list[Response | ProviderError]:
    """One Response (or the case's own ProviderError) per request, in request order."""
    share = latency_ms / max(len(requests), 1)
    out: list[Response | ProviderError] = []
    for r in requests:
        obj = records.get((r.eval_id, r.trial)) or records.get((r.eval_id, None))
        if obj is None:
            out.append(ProviderError(f"Batch output missing id '{r.eval_id}'",
                                     details={"batch": raw}))
            continue
        parsed = from_object(obj) if _structured(obj) else None
        if parsed is None:
            text = {k: v for k, v in obj.items() if k not in ("id", "trial")}
            out.append(Response(text=json.dumps(text, ensure_ascii=False), latency_ms=share,
                                raw={**raw, "record_id": r.eval_id}))
            continue
        out.append(Response(text=parsed.text, output_messages=parsed.output_messages,
                            trace=parsed.trace, usage=parsed.usage,
                            latency_ms=parsed.duration_ms if parsed.duration_ms is not None
                            else share, raw={**raw, "record_id": r.eval_id}))
    return out


def _structured(obj: dict[str, Any]) -> bool:
    return any(k in obj for k in ("text", "output_messages", "trace"))
