"""Case drill-downs: for every record of every run, a closed ``<details>`` holding its
conversation, expected outcome, answer, each evaluator's score, hits, misses and
reasoning (nested members too), its trace and tool calls, latency, tokens and cost.
The matrix links to them by anchor (``#case-<run>-<eval_id>-<target>-<trial>``)."""
from __future__ import annotations

import json
import re
from typing import Any

from agentv.tasks.report.case_context import CaseContext
from agentv.tasks.report.html import escape_text, fmt, missing

MAX_CASES = 3000
MAX_TEXT = 20_000


def case_anchor(run_index: int, eval_id: Any, target: Any, trial: Any) -> str:
    raw = f"case-{run_index + 1}-{eval_id}-{target}-{trial}"
    return re.sub(r"[^A-Za-z0-9_.:-]+", "_", raw)


def _json(raw: Any, default: Any) -> Any:
    if missing(raw):
        return default
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return default


def _pre(text: Any, css: str = "") -> str:
    text = "" if missing(text) else str(text)
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT] + f"\n… ({len(text) - MAX_TEXT} more characters)"
    return f"<pre class='{css}'>{escape_text(text)}</pre>"


def _items(items: list[Any] | None, css: str) -> str:
    if not items:
        return ""
    return f"<ul class='items {css}'>" + "".join(f"<li>{escape_text(str(i))}</li>"
                                                for i in items) + "</ul>"


def _evaluator_rows(results: list[dict[str, Any]], prefix: str = "") -> str:
    rows = ""
    for r in results or []:
        name = f"{prefix}{r.get('name') or r.get('type')}"
        error = (f"<p class='error'>error: {escape_text(str(r['error']))}</p>"
                 if r.get("error") else "")
        warnings = "".join(f"<p class='borderline'>warning: {escape_text(str(w))}</p>"
                           for w in r.get("warnings") or [])
        verdict = escape_text(str(r.get("verdict") or ""))
        rows += (f"<tr class='evaluator'><td>{escape_text(name)}</td>"
                 f"<td>{escape_text(str(r.get('type')))}</td><td class='num'>{fmt(r.get('score'))}"
                 f"</td><td class='{verdict}'>{verdict}</td><td>{_items(r.get('hits'), 'hit')}</td>"
                 f"<td>{_items(r.get('misses'), 'miss')}</td>"
                 f"<td>{escape_text(str(r.get('reasoning') or ''))}{error}{warnings}</td></tr>")
        rows += _evaluator_rows(r.get("evaluator_results") or [], f"{name} / ")
    return rows


def evaluators_table(raw: Any) -> str:
    rows = _evaluator_rows(_json(raw, []))
    if not rows:
        return "<p>No evaluator results.</p>"
    return ("<table class='evaluators'><tr><th>evaluator</th><th>type</th><th>score</th>"
            "<th>verdict</th><th>hits</th><th>misses</th><th>reasoning</th></tr>"
            f"{rows}</table>")


def _short(value: Any, limit: int = 400) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def trace_section(row: Any) -> str:
    """The trace summary (tool calls by name, LLM calls, tokens) and, when the record
    carries it (``--include-trace``), every event with arguments, result and duration."""
    summary = _json(getattr(row, "trace_summary", None), None)
    extra = _json(getattr(row, "extra", None), {}) or {}
    events = extra.get("trace") or []
    if not summary and not events:
        return "<p class='trace'>No trace recorded for this case.</p>"
    out = ""
    if summary:
        out += f"<p class='trace-summary'>summary:</p>{_pre(json.dumps(summary, indent=1))}"
    if events:
        rows = "".join(
            f"<tr class='{'tool-call' if e.get('type') == 'tool_call' else 'event'}'>"
            f"<td>{i + 1}</td><td>{escape_text(str(e.get('type')))}</td>"
            f"<td>{escape_text(str(e.get('name') or e.get('model') or ''))}</td>"
            f"<td>{escape_text(_short(e.get('arguments', '')))}</td>"
            f"<td>{escape_text(_short(e.get('result', e.get('text', ''))))}</td>"
            f"<td class='{'pass' if e.get('ok', True) else 'error'}'>"
            f"{'ok' if e.get('ok', True) else 'failed'}</td>"
            f"<td class='num'>{fmt(e.get('duration_ms'), 0)}</td></tr>"
            for i, e in enumerate(events))
        out += ("<table class='trace'><tr><th>#</th><th>type</th><th>tool / model</th>"
                "<th>arguments</th><th>result</th><th>ok</th><th>ms</th></tr>"
                f"{rows}</table>")
    return out


def _usd(value: Any) -> str:
    return "n/a" if missing(value) else f"${float(value):.6f}"


def _meta(row: Any) -> str:
    items = [("latency", f"{fmt(row.latency_ms, 0)} ms"),
             ("tokens", f"{fmt(row.input_tokens)} in / {fmt(row.output_tokens)} out"),
             ("cost", _usd(row.cost_usd)), ("judge cost", _usd(row.judge_cost_usd)),
             ("attempts", fmt(row.attempt))]
    return "<p class='meta'>" + "".join(f"<span>{k}: <b>{v}</b></span>"
                                        for k, v in items) + "</p>"


def _message(message: dict[str, Any]) -> str:
    content = message.get("content")
    if content is None:
        content = message.get("tool_calls")
    text = content if isinstance(content, str) else json.dumps(content, indent=1, default=str)
    return (f"<p class='role'>{escape_text(str(message.get('role', 'assistant')))}</p>"
            + _pre(_short(text, MAX_TEXT)))


def conversation(row: Any) -> str:
    """Every input turn (the system prompt too), then the target's output messages."""
    request = (_json(getattr(row, "lm_provider_request", None), None)
               or _json(getattr(row, "agent_provider_request", None), None) or {})
    chat = request.get("chat_prompt") if isinstance(request, dict) else None
    turns = [m for m in chat if isinstance(m, dict)] if isinstance(chat, list) else []
    parts = [_message(m) for m in turns] or [_pre(row.question)]
    extra = _json(getattr(row, "extra", None), {}) or {}
    parts += [_message(m) for m in extra.get("output_messages") or [] if isinstance(m, dict)]
    return "".join(parts)


def _files(names: list[str]) -> str:
    return _items(names, "files") or "<p>none</p>"


def case_block(row: Any, run_index: int, run_label: str, context: CaseContext | None,
               diff: str) -> str:
    """One record's drill-down; ``diff``: its answer beside another run's or target's."""
    context = context or CaseContext("n/a")
    anchor = case_anchor(run_index, row.eval_id, row.target, row.trial)
    verdict = escape_text(str(row.verdict))
    error = (f"<p class='error'>error: {escape_text(str(row.error))}</p>"
             if verdict == "error" else "")
    return (f"<details class='case' id='{escape_text(anchor)}' data-run='{run_index + 1}'>"
            f"<summary><b>{escape_text(str(row.eval_id))}</b> [{escape_text(str(row.target))}]"
            f" · run {escape_text(run_label)} · trial {row.trial} — score {fmt(row.score)} "
            f"<span class='{verdict}'>{verdict}</span></summary>{_meta(row)}{error}"
            f"<h4>Conversation</h4>{conversation(row)}"
            f"<h4>Guidelines</h4>{_files(context.guidelines)}"
            f"<h4>Attachments</h4>{_files(context.attachments)}"
            f"<h4>Expected outcome</h4>{_pre(context.expected_outcome)}"
            f"<h4>Reference answer</h4>{_pre(context.reference_answer or 'n/a')}"
            f"<h4>Answer</h4>{_pre(row.candidate_answer)}"
            f"<h4>Evaluators</h4>{evaluators_table(row.evaluator_results)}"
            + (f"<h4>Answer beside another run</h4>{diff}" if diff else "")
            + f"<h4>Trace and tool calls</h4>{trace_section(row)}</details>")
