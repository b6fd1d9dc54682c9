"""The case page's data: every input turn and output message, the answer, the expected
outcome and reference answer (from the eval file when it is still there), each evaluator's
verdict, score, hits, misses, reasoning, rubric items and error (nested members too), the
trace (tool calls with arguments, results and durations), the agent's file changes (a
unified diff), cost, tokens and latency, and the same case's answer on the other targets and
on the baseline run with a line diff."""
from __future__ import annotations

import json
import re
from typing import Any

from agentv.providers.printable import printable
from agentv.tasks.view.case_context import CaseContext, diff_lines
from agentv.tasks.view.run_data import case_reason

MAX_TEXT = 50_000
RUBRIC_LINE = re.compile(r"^\[(?P<id>[^\]]+)\]")


def text(value: Any, limit: int = MAX_TEXT) -> str:
    value = "" if value is None else (value if isinstance(value, str)
                                      else json.dumps(value, indent=1, default=str))
    if len(value) > limit:
        value = value[:limit] + f"\n… ({len(value) - limit} more characters)"
    return printable(value, lines=True)


def parsed(raw: Any, default: Any) -> Any:
    if raw is None:
        return default
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return default


def _turns(row: dict[str, Any]) -> list[dict[str, str]]:
    request = (parsed(row.get("lm_provider_request"), None)
               or parsed(row.get("agent_provider_request"), None) or {})
    chat = request.get("chat_prompt") if isinstance(request, dict) else None
    if isinstance(chat, list) and chat:
        return [{"role": text(m.get("role", "user")), "content": text(m.get("content"))}
                for m in chat if isinstance(m, dict)]
    return [{"role": "user", "content": text(row.get("question"))}]


def _rubric(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Rubric items: the judge's ``[id] …`` hit and miss lines, with its raw score."""
    raw = (result.get("details") or {}).get("raw_scores") if isinstance(
        result.get("details"), dict) else None
    if not isinstance(raw, dict):
        return []
    items = []
    for ok, lines in ((True, result.get("hits") or []), (False, result.get("misses") or [])):
        for line in lines:
            found = RUBRIC_LINE.match(str(line))
            if found:
                items.append({"id": text(found["id"]), "ok": ok, "line": text(line),
                              "score": raw.get(found["id"])})
    return items


def evaluators(results: Any, prefix: str = "") -> list[dict[str, Any]]:
    out = []
    for r in results or []:
        if not isinstance(r, dict):
            continue
        name = f"{prefix}{r.get('name') or r.get('type')}"
        details = {k: v for k, v in (r.get("details") or {}).items()} \
            if isinstance(r.get("details"), dict) else r.get("details")
        out.append({"name": text(name), "type": text(r.get("type")), "score": r.get("score"),
                    "weight": r.get("weight"), "verdict": text(r.get("verdict") or ""),
                    "hits": [text(h) for h in r.get("hits") or []],
                    "misses": [text(m) for m in r.get("misses") or []],
                    "reasoning": text(r.get("reasoning")), "error": text(r.get("error")),
                    "warnings": [text(w) for w in r.get("warnings") or []],
                    "rubric": _rubric(r), "details": text(details) if details else ""})
        out += evaluators(r.get("evaluator_results"), f"{name} / ")
    return out


def _short(value: Any, limit: int = 2000) -> str:
    return text(value, limit)


def trace(row: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    events = [{"type": text(e.get("type")), "name": text(e.get("name") or e.get("tool")
                                                         or e.get("model") or ""),
               "arguments": _short(e.get("arguments", e.get("input", ""))),
               "result": _short(e.get("result", e.get("output", e.get("text", "")))),
               "ok": e.get("ok", True), "ms": e.get("duration_ms"),
               "tokens": [e.get("input_tokens"), e.get("output_tokens")]}
              for e in extra.get("trace") or [] if isinstance(e, dict)]
    return {"summary": parsed(row.get("trace_summary"), None), "events": events}


def _meta(row: dict[str, Any]) -> dict[str, Any]:
    keys = ("latency_ms", "input_tokens", "output_tokens", "cost_usd", "judge_cost_usd",
            "attempt", "timestamp", "cached", "case_key", "dataset", "conversation_id")
    return {k: row.get(k) for k in keys}


def _other(row: dict[str, Any], mine: dict[str, Any], label: str, my_label: str) -> dict:
    return {"label": printable(label), "target": printable(row.get("target") or ""),
            "verdict": row.get("verdict"), "score": row.get("score"),
            "answer": text(row.get("candidate_answer")),
            "diff": [printable(line) for line in diff_lines(
                row.get("candidate_answer"), mine.get("candidate_answer"), label, my_label)]}


def case_data(run: dict[str, Any], members: list[dict[str, Any]], target: str,
              context: CaseContext | None, baseline: tuple[str, dict[str, Any]] | None = None
              ) -> dict[str, Any]:
    """One case's page. ``members``: its records on every target (same eval_id and trial);
    ``baseline``: (the baseline run's id, its record of this case on this target)."""
    row = next((m for m in members if (m.get("target") or "") == target), members[0])
    context = context or CaseContext(row.get("expected_outcome") or "")
    extra = parsed(row.get("extra"), {}) or {}
    mine = f"{run['id']} · {row.get('target') or ''}"
    others = [_other(m, row, f"{run['id']} · {m.get('target') or ''}", mine)
              for m in members if m is not row]
    if baseline:
        others.append(_other(baseline[1], row, f"{baseline[0]} · {target} (baseline)", mine))
    return {
        "run": {k: run.get(k) for k in ("id", "path", "flow_run_url", "targets", "suites")},
        "id": printable(row.get("eval_id")), "trial": row.get("trial") or 0,
        "target": printable(row.get("target") or ""), "verdict": row.get("verdict"),
        "score": row.get("score"), "reason": case_reason(row), "error": text(row.get("error")),
        "turns": _turns(row),
        "outputs": [{"role": text(m.get("role", "assistant")), "content": text(
            m.get("content") if m.get("content") is not None else m.get("tool_calls"))}
            for m in extra.get("output_messages") or [] if isinstance(m, dict)],
        "answer": text(row.get("candidate_answer")),
        "expected": text(row.get("expected_outcome") or context.expected_outcome),
        "reference": text(context.reference_answer), "guidelines": context.guidelines,
        "attachments": context.attachments,
        "evaluators": evaluators(parsed(row.get("evaluator_results"), [])),
        "trace": trace(row, extra), "files": text(extra.get("file_changes") or ""),
        "workspace": text(extra.get("workspace_path") or ""), "meta": _meta(row),
        "siblings": [{"target": printable(m.get("target") or ""), "verdict": m.get("verdict"),
                      "score": m.get("score")} for m in members],
        "others": others}
