"""One failed case as a markdown page (the Prefect UI's case details artifact): the verdict,
every input turn (the system prompt too), the answer and the target's output messages, the
expected outcome, each evaluator's score, verdict, reasoning, hits, misses and error, the
tool calls of its trace, and the case's error. Read from the case's result record as the
results file holds it (secrets already masked); case text is escaped (providers/printable)
and fenced, so it renders as text, never as markup."""
from __future__ import annotations

import json
import re
from typing import Any

from agentv.providers.printable import printable

MAX_TEXT = 6000  # characters of one message, answer or trace event shown
MAX_EVENTS = 60


def _json(raw: Any, default: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return default
    return default if raw is None else raw


def _clip(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fenced(value: Any) -> str:
    """A fenced block of ``value``'s text (a fence longer than any backtick run in it)."""
    text = value if isinstance(value, str) else json.dumps(value, indent=1, default=str)
    text = printable(_clip(text), lines=True)
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def inline(value: Any) -> str:
    """Short text on one markdown line, markup escaped."""
    text = " ".join(printable(value if value is not None else "").split())
    for char in "\\|*_`<>[]#":
        text = text.replace(char, "\\" + char)
    return text


def _message(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    if content is None:
        content = message.get("tool_calls") or message.get("toolCalls") or ""
    return [f"**{inline(message.get('role', 'assistant'))}**", "", fenced(content), ""]


def _turns(record: dict[str, Any]) -> list[dict[str, Any]]:
    request = (_json(record.get("lm_provider_request"), None)
               or _json(record.get("agent_provider_request"), None) or {})
    chat = request.get("chat_prompt") if isinstance(request, dict) else None
    if isinstance(chat, list) and chat:
        return [m for m in chat if isinstance(m, dict)]
    question = request.get("question") if isinstance(request, dict) else None
    return [{"role": "user", "content": question}] if question else []


def _evaluator(result: dict[str, Any]) -> list[str]:
    score = result.get("score")
    shown = f"{float(score):.3f}" if isinstance(score, (int, float)) else "n/a"
    lines = [f"### {inline(result.get('name') or result.get('type'))} — "
             f"{inline(result.get('verdict') or 'n/a')} {shown}",
             f"type: {inline(result.get('type'))}"]
    for label in ("reasoning", "error"):
        if result.get(label):
            lines += ["", f"{label}:", "", fenced(result[label])]
    for label in ("hits", "misses"):
        items = result.get(label) or []
        if items:
            lines += ["", f"{label}:"] + [f"- {inline(i)}" for i in items]
    return lines + [""]


def _tool_calls(record: dict[str, Any]) -> list[str]:
    events = [e for e in record.get("trace") or [] if isinstance(e, dict)]
    summary = record.get("trace_summary")
    if not events and not summary:
        return ["No trace recorded for this case (`--include-trace` records every event)."]
    lines = [f"summary: {inline(json.dumps(summary, default=str))}", ""] if summary else []
    for i, event in enumerate(events[:MAX_EVENTS], 1):
        ok = "ok" if event.get("ok", True) else "failed"
        lines += [f"{i}. **{inline(event.get('type'))}** {inline(event.get('name') or '')} "
                  f"({ok}, {inline(event.get('duration_ms', 'n/a'))} ms)"]
        if event.get("arguments") or event.get("result"):
            lines += ["", fenced({"arguments": event.get("arguments"),
                                  "result": event.get("result", event.get("text"))}), ""]
    if len(events) > MAX_EVENTS:
        lines.append(f"… and {len(events) - MAX_EVENTS} more event(s) in the results file.")
    return lines


def case_markdown(record: dict[str, Any], verdict: str, reason: str) -> str:
    """The page of one failed case (``verdict`` and ``reason``, the one-line why: as the
    failures list has them)."""
    score = record.get("score")
    shown = f"{float(score):.3f}" if isinstance(score, (int, float)) else "n/a"
    lines = [f"# {inline(record.get('eval_id'))} · {inline(record.get('target'))} · "
             f"trial {inline(record.get('trial') or 0)}", "",
             f"**{inline(verdict)} {shown}** — {inline(reason)}", ""]
    if record.get("error"):
        lines += ["## Error", "", fenced(record["error"]), ""]
    lines += ["## Input", ""]
    for message in _turns(record) or [{"role": "user", "content": ""}]:
        lines += _message(message)
    lines += ["## Answer", "", fenced(record.get("candidate_answer") or ""), ""]
    for message in record.get("output_messages") or []:
        if isinstance(message, dict):
            lines += _message(message)
    lines += ["## Expected outcome", "", fenced(record.get("expected_outcome") or "(none)"), ""]
    lines += ["## Evaluators", ""]
    for result in record.get("evaluator_results") or []:
        if isinstance(result, dict):
            lines += _evaluator(result)
    return "\n".join(lines + ["## Tool calls", "", *_tool_calls(record)])
