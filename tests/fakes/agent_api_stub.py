"""Loopback model APIs for the real agent programs: Anthropic Messages (``POST
/v1/messages``, SSE with ``tool_use`` blocks: Claude Code) and OpenAI chat completions
(``POST /v1/chat/completions``, SSE with ``tool_calls`` and a usage chunk: Copilot CLI, pi).

    url, stub = start()          # url = "http://127.0.0.1:PORT"
    stub.requests                # Recorded(path, headers, body), in order
    stub.stop()

What it answers depends on the task in the last user message (tags such as Copilot's
``<current_datetime>`` and Claude Code's ``<system-reminder>`` removed), like
``responses_stub`` does for codex:
  ``RUN: <command>``  a call of the request's shell tool (``Bash`` / ``bash``) running
                      <command>; once its result comes back, "command output: <result>"
  ``FAIL``            HTTP 400 with the wire's error body, message "stub: model overloaded"
  ``HANG``            headers, then nothing until the client goes away (after the tool
                      result has come back, with ``RUN:``)
  anything else       "The answer is N" when a linked file holds ``ANSWER: N``, else
                      "echo: <first line of the task>"
Usage: 100 prompt tokens (20 of them cached) and 10 output tokens per model call.
"""
from __future__ import annotations

import http.server
import json
import re
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlparse

SHELL_TOOLS = ("Bash", "bash", "shell")
TAGS = re.compile(r"<(current_datetime|system-reminder)>.*?</\1>", re.S)
FAILURE = "stub: model overloaded"


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


def answer_text(prompt: str) -> str:
    for uri in re.findall(r"\((file://[^)]+)\)", prompt):
        try:
            data = open(unquote(urlparse(uri).path), encoding="utf-8").read()
        except OSError:
            continue
        found = re.search(r"ANSWER: (\S+)", data)
        if found:
            return f"The answer is {found.group(1)}"
    task = prompt.split("[[ ## user_query ## ]]")[-1].strip()
    return "echo: " + (task.splitlines()[0] if task else "")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(str(c.get("text") or "") for c in content or []
                   if isinstance(c, dict) and c.get("type") in ("text", "input_text"))


def turns(wire: str, body: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, text) of each message; tool results as role "tool"."""
    out = []
    for m in body.get("messages") or []:
        content = m.get("content")
        if wire == "anthropic" and isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    out.append(("tool", _text(block.get("content"))))
            text = _text(content)
            if text.strip() and not any(isinstance(b, dict) and b.get("type") == "tool_result"
                                        for b in content):
                out.append((m.get("role", ""), text))
        else:
            out.append(("tool" if m.get("role") == "tool" else m.get("role", ""),
                        _text(content)))
    return [(role, TAGS.sub("", text).strip()) for role, text in out]


def plan(texts: list[tuple[str, str]], tools: list[str]) -> tuple[str, Any]:
    users = [t for r, t in texts if r == "user" and t]
    prompt = users[-1] if users else ""
    run = re.search(r"RUN: (.+)", prompt)
    tool_done = bool(texts) and texts[-1][0] == "tool"
    if "HANG" in prompt and (tool_done or not run):
        return "hang", None
    if tool_done:
        return "message", f"command output: {texts[-1][1].strip()}"
    if "FAIL" in prompt:
        return "fail", FAILURE
    if run:
        name = next((t for t in SHELL_TOOLS if t in tools), tools[0] if tools else "bash")
        return "call", (name, run.group(1).strip())
    return "message", answer_text(prompt)


def anthropic_events(kind: str, value: Any, n: int, model: str) -> list[dict[str, Any]]:
    start = {"type": "message_start", "message": {
        "id": f"msg_{n}", "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 80, "cache_creation_input_tokens": 0,
                  "cache_read_input_tokens": 20, "output_tokens": 1}}}
    if kind == "call":
        name, command = value
        block = {"type": "tool_use", "id": f"toolu_{n}", "name": name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(
            {"command": command, "description": "run the command"})}
        stop = "tool_use"
    else:
        block, delta, stop = ({"type": "text", "text": ""},
                              {"type": "text_delta", "text": value}, "end_turn")
    return [start, {"type": "content_block_start", "index": 0, "content_block": block},
            {"type": "content_block_delta", "index": 0, "delta": delta},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
             "usage": {"output_tokens": 10}},
            {"type": "message_stop"}]


def chat_chunks(kind: str, value: Any, n: int, model: str) -> list[dict[str, Any]]:
    base = {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    if kind == "call":
        name, command = value
        body = chunk({"tool_calls": [{"index": 0, "id": f"call_{n}", "type": "function",
                                      "function": {"name": name, "arguments": json.dumps(
                                          {"command": command,
                                           "description": "run the command"})}}]})
        finish = "tool_calls"
    else:
        body, finish = chunk({"content": value}), "stop"
    usage = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110,
             "prompt_tokens_details": {"cached_tokens": 20}}
    return [chunk({"role": "assistant", "content": ""}), body, chunk({}, finish),
            {**base, "choices": [], "usage": usage}]


class Stub:
    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.server: http.server.ThreadingHTTPServer | None = None

    def stop(self) -> None:
        if self.server:
            self.server.shutdown()
            self.server.server_close()


def _handler(stub: Stub) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):  # noqa: N802 - http.server's naming
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            body = json.loads(raw or b"{}")
            stub.requests.append(Recorded(self.path, dict(self.headers), body))
            path = urlparse(self.path).path
            if path.endswith("/count_tokens"):
                return self._json(200, {"input_tokens": 100})
            wire = "anthropic" if path.endswith("/messages") else "openai"
            tools = [t.get("name") or (t.get("function") or {}).get("name")
                     for t in body.get("tools") or [] if isinstance(t, dict)]
            kind, value = plan(turns(wire, body), [t for t in tools if t])
            if kind == "fail":
                return self._json(400, {"type": "error", "error": {
                    "type": "invalid_request_error", "message": value}}
                    if wire == "anthropic" else {"error": {
                        "message": value, "type": "invalid_request_error", "code": None}})
            self._stream(wire, kind, value, str(body.get("model") or "stub"))

        def _stream(self, wire: str, kind: str, value: Any, model: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            if kind == "hang":
                self.wfile.flush()
                time.sleep(120)
                return
            n = len(stub.requests)
            if wire == "anthropic":
                for e in anthropic_events(kind, value, n, model):
                    self.wfile.write(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode())
            else:
                for c in chat_chunks(kind, value, n, model):
                    self.wfile.write(f"data: {json.dumps(c)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

        def do_GET(self):  # noqa: N802 - e.g. /v1/models: none
            self._json(200, {"object": "list", "data": []})

        def _json(self, status: int, obj: dict[str, Any]) -> None:
            payload = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    return Handler


def start() -> tuple[str, Stub]:
    stub = Stub()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(stub))
    server.daemon_threads = True
    stub.server = server
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", stub
