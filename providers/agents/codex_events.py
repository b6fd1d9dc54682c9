"""The ``codex exec --json`` event stream → final answer, normalized trace, token usage.

Codex CLI 0.169 prints one JSON event per line (codex-rs/exec ``ThreadEvent``):
``thread.started``, ``turn.started``, ``item.started`` / ``item.updated`` /
``item.completed``, ``item.plan.delta``, ``request_user_input``, ``turn.completed``
(``usage``), ``turn.failed`` (``error.message``) and ``error`` (``message``). Items:
``agent_message`` (the answer: the last one), ``reasoning``, ``plan``, ``todo_list`` (trace
messages), ``command_execution`` (``status`` completed | failed | declined, ``exit_code``),
``file_change``, ``mcp_tool_call`` (``result {content, structured_content}`` or
``error {message}``), ``collab_tool_call``, ``web_search`` (``query``, ``action``) — tool
calls — and ``error``: a non-fatal warning (a trace message, not an error). A command that
was declined or exited non-zero is a failed tool call; an item started but never completed
is recorded as incomplete. Each ``turn.completed`` is one LLM call with the turn's usage
(exec mode does not show single model requests). Older CLIs printed ``{"id", "msg": {...}}``
events; those are understood too. Lines arrive with their receive time, which gives tool
calls their start/end/duration.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentv.providers.agents.events import AgentRun, MalformedStream, iso, json_events
from agentv.providers.base import Usage
from agentv.providers.trace import TraceEvent

_TOOL_ITEMS = ("command_execution", "file_change", "web_search", "mcp_tool_call",
               "collab_tool_call")
_NOTE_ITEMS = ("reasoning", "plan", "todo_list", "error")
_LEGACY = {"exec_command": "command_execution", "patch_apply": "file_change",
           "mcp_tool_call": "mcp_tool_call"}


__all__ = ["CodexRun", "MalformedStream", "parse_stream"]


@dataclass
class CodexRun(AgentRun):
    """``failure``: the turn.failed / error event message."""
    stream_errors: list[str] = field(default_factory=list)
    completed_turns: int = 0
    _open: dict[str, tuple[float, dict[str, Any]]] = field(default_factory=dict)

    def usage_add(self, inp: Any, out: Any) -> None:
        u = self.usage or Usage(0, 0)
        u.input_tokens = (u.input_tokens or 0) + int(inp or 0)
        u.output_tokens = (u.output_tokens or 0) + int(out or 0)
        self.usage = u


def parse_stream(lines: list[tuple[float, str]], model: str | None = None) -> CodexRun:
    """``lines`` are (receive time in epoch seconds, text). Raises MalformedStream on a
    line that is not a JSON object, or when the stream holds no events at all."""
    run = CodexRun(model=model)
    for at, event in json_events(lines, "codex"):
        if isinstance(event.get("msg"), dict):
            _legacy(run, at, event["msg"])
        else:
            _event(run, at, event)
    end = lines[-1][0] if lines else 0.0
    for started, item in list(run._open.values()):  # started, never completed
        if item.get("type") in _TOOL_ITEMS:
            run.trace.append(_tool_event({**item, "status": "incomplete"}, started, end))
    run._open.clear()
    if run.stream_errors and run.failure is None and not run.completed_turns:
        run.failure = run.stream_errors[-1]
    elif run.stream_errors and run.failure is None:
        run.warnings.extend(run.stream_errors)
    return run


def _event(run: CodexRun, at: float, event: dict[str, Any]) -> None:
    kind = event.get("type")
    item = event.get("item") if isinstance(event.get("item"), dict) else None
    if kind == "item.started" and item:
        run._open[str(item.get("id"))] = (at, item)
    elif kind == "item.updated" and item and str(item.get("id")) in run._open:
        run._open[str(item.get("id"))] = (run._open[str(item.get("id"))][0], item)
    elif kind == "item.completed" and item:
        _completed(run, at, item)
    elif kind == "turn.completed":
        usage = event.get("usage") or {}
        run.usage_add(usage.get("input_tokens"), usage.get("output_tokens"))
        run.completed_turns += 1
        run.trace.append(TraceEvent(type="llm_call", name=run.model, model=run.model,
                                    input_tokens=usage.get("input_tokens"),
                                    output_tokens=usage.get("output_tokens"),
                                    end=_iso(at), extra=_cached(usage)))
    elif kind == "turn.failed":
        err: dict[str, Any] = event["error"] if isinstance(event.get("error"), dict) else {}
        run.failure = str(err.get("message") or run.failure or kind)
    elif kind == "error":  # fatal unless a turn still completes (e.g. after a reconnect)
        run.stream_errors.append(str(event.get("message") or kind))
    elif kind == "request_user_input":
        run.trace.append(TraceEvent(type="message", name="request_user_input",
                                    arguments=event.get("questions"), end=_iso(at)))


def _completed(run: CodexRun, at: float, item: dict[str, Any]) -> None:
    kind = item.get("type")
    started = run._open.pop(str(item.get("id")), (None, None))[0]
    if kind == "agent_message":
        run.text = str(item.get("text") or "")
    elif kind in _TOOL_ITEMS:
        run.trace.append(_tool_event(item, started, at))
    elif kind in _NOTE_ITEMS:
        text = item.get("message") if kind == "error" else item.get("text")
        if kind == "error":
            run.warnings.append(str(text))
        run.trace.append(TraceEvent(type="message", name="warning" if kind == "error" else kind,
                                    text=str(text) if text is not None else None,
                                    arguments=item.get("items"), end=_iso(at)))


def _tool_event(item: dict[str, Any], started: float | None, ended: float) -> TraceEvent:
    kind, status = item["type"], item.get("status")
    args: Any
    result: Any
    extra = {k: v for k, v in (("id", item.get("id")), ("status", status)) if v}
    ok = status not in ("failed", "declined", "incomplete")
    if kind == "command_execution":
        name, args, result = kind, {"command": item.get("command")}, item.get("aggregated_output")
        ok = ok and item.get("exit_code") == 0
        extra["exit_code"] = item.get("exit_code")
    elif kind == "file_change":
        name, args, result = kind, {"changes": item.get("changes")}, None
    elif kind == "web_search":
        name, args, result = kind, {"query": item.get("query"), "action": item.get("action")}, None
    elif kind == "collab_tool_call":
        name = f"collab:{item.get('tool')}"
        args = {"prompt": item.get("prompt"), "receivers": item.get("receiver_thread_ids")}
        result = item.get("agents_states")
    else:
        name = f"mcp:{item.get('server')}/{item.get('tool')}"
        error: dict[str, Any] | None = (item["error"] if isinstance(item.get("error"), dict)
                                         else None)
        args, result = item.get("arguments"), item.get("result")
        if error:
            ok, result = False, {"error": error.get("message")}
    return TraceEvent(type="tool_call", name=name, arguments=args, result=result, ok=bool(ok),
                      start=_iso(started) if started else None, end=_iso(ended),
                      duration_ms=round((ended - started) * 1000, 3) if started else None,
                      extra=extra)


def _legacy(run: CodexRun, at: float, msg: dict[str, Any]) -> None:
    kind = str(msg.get("type", ""))
    base, _, phase = kind.rpartition("_")
    if kind == "agent_message":
        run.text = str(msg.get("message") or "")
    elif kind == "task_complete" and msg.get("last_agent_message"):
        run.text = str(msg["last_agent_message"])
    elif base in _LEGACY and phase == "begin":
        run._open[str(msg.get("call_id"))] = (at, msg)
    elif base in _LEGACY and phase == "end":
        _legacy_end(run, at, _LEGACY[base], msg)
    elif kind == "token_count":
        info = msg.get("info") or msg
        last = info.get("last_token_usage") or info
        run.usage_add(last.get("input_tokens"), last.get("output_tokens"))
    elif kind in ("error", "stream_error"):
        run.failure = str(msg.get("message") or kind)


def _legacy_end(run: CodexRun, at: float, name: str, msg: dict[str, Any]) -> None:
    started, begin = run._open.pop(str(msg.get("call_id")), (None, {}))
    if name == "mcp_tool_call":
        inv = (begin or msg).get("invocation") or {}
        name = f"mcp:{inv.get('server')}/{inv.get('tool')}"
        args, result = inv.get("arguments"), msg.get("result")
        ok = not (isinstance(result, dict) and "Err" in result)
    elif name == "command_execution":
        args = {"command": (begin or {}).get("command")}
        result, ok = msg.get("aggregated_output", msg.get("stdout")), msg.get("exit_code") == 0
    else:
        args, result = {"changes": (begin or {}).get("changes")}, None
        ok = bool(msg.get("success", True))
    run.trace.append(TraceEvent(type="tool_call", name=name, arguments=args, result=result,
                                ok=bool(ok), start=_iso(started) if started else None,
                                end=_iso(at),
                                duration_ms=round((at - started) * 1000, 3) if started else None))


def _cached(usage: dict[str, Any]) -> dict[str, Any]:
    cached = usage.get("cached_input_tokens")
    return {"cached_input_tokens": cached} if cached is not None else {}


_iso = iso
