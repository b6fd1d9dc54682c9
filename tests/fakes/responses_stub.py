"""Loopback OpenAI Responses API stub (``POST /v1/responses``, SSE) for the real Codex CLI.

    url, stub = start()          # url = "http://127.0.0.1:PORT/v1"
    stub.requests                # parsed JSON bodies, in order
    stub.stop()

What it answers depends on the last user message of the request:
  ``RUN: <command>``  first a function call to the request's shell tool running <command>
                      (``exec_command`` with ``login: false``);
                      once its output comes back, "command output: <output>"
  ``FAIL``            a ``response.failed`` event with the message "stub: model overloaded"
  ``HANG``            headers, then nothing until the client goes away (after the
                      command's output has come back, with ``RUN:``)
  anything else       "The answer is N" when a linked/quoted file holds ``ANSWER: N``,
                      else "echo: <first line of the task>"
Usage is reported as input 100 / cached 20 / output 10 tokens per response.
"""
from __future__ import annotations

import http.server
import json
import re
import threading
import time
from typing import Any
from urllib.parse import unquote, urlparse

SHELL_TOOLS = ("shell", "exec_command", "shell_command", "local_shell")


def _texts(items: Any) -> list[tuple[str, str]]:
    """(role or item type, text) for each input item."""
    out = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "function_call_output":
            output = item.get("output")
            out.append(("tool", output if isinstance(output, str) else json.dumps(output)))
            continue
        content = item.get("content")
        if isinstance(content, str):
            out.append((item.get("role", ""), content))
        elif isinstance(content, list):
            out.append((item.get("role", ""), "".join(c.get("text", "") for c in content
                                                      if isinstance(c, dict))))
    return out


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


class Stub:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.server: http.server.ThreadingHTTPServer | None = None

    def stop(self) -> None:
        if self.server:
            self.server.shutdown()
            self.server.server_close()

    def plan(self, body: dict[str, Any]) -> tuple[str, Any]:
        texts = _texts(body.get("input"))
        users = [t for r, t in texts if r == "user"]
        prompt = users[-1] if users else ""
        run = re.search(r"RUN: (.+)", prompt)
        tool_done = bool(texts) and texts[-1][0] == "tool"
        if "HANG" in prompt and (tool_done or not run):
            return "hang", None
        if tool_done:
            return "message", f"command output: {texts[-1][1].strip()}"
        if "FAIL" in prompt:
            return "fail", "stub: model overloaded"
        if run:
            tools = [t.get("name") for t in body.get("tools", []) if isinstance(t, dict)]
            name = next((t for t in SHELL_TOOLS if t in tools), "shell")
            return "call", (name, run.group(1).strip())
        return "message", answer_text(prompt)


def _events(kind: str, value: Any, n: int) -> list[dict[str, Any]]:
    rid = f"resp_{n}"
    usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 20},
             "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 110}
    created = {"type": "response.created", "response": {"id": rid}}
    if kind == "fail":
        return [created, {"type": "response.failed", "response": {
            "id": rid, "error": {"code": "server_error", "message": value}}}]
    if kind == "call":
        name, command = value
        args = ({"cmd": command, "login": False, "yield_time_ms": 30000}
                if name == "exec_command"
                else {"command": command} if name == "shell_command"
                else {"command": ["bash", "-lc", command]})
        item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}",
                "name": name, "arguments": json.dumps(args)}
    else:
        item = {"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": value, "annotations": []}]}
    events = [created, {"type": "response.output_item.added", "output_index": 0, "item": item}]
    if kind == "message":
        events.append({"type": "response.output_text.delta", "item_id": item["id"],
                       "output_index": 0, "content_index": 0, "delta": value})
    events += [{"type": "response.output_item.done", "output_index": 0, "item": item},
               {"type": "response.completed", "response": {"id": rid, "usage": usage,
                                                           "output": [item]}}]
    return events


def start() -> tuple[str, Stub]:
    stub = Stub()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):  # noqa: N802 - http.server's naming
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            stub.requests.append(body)
            kind, value = stub.plan(body)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            if kind == "hang":
                self.wfile.flush()
                time.sleep(120)
                return
            for event in _events(kind, value, len(stub.requests)):
                self.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n"
                                 .encode())
            self.wfile.flush()
            self.close_connection = True

        def do_GET(self):  # noqa: N802 - e.g. /v1/models: none
            payload = b'{"object": "list", "data": []}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    stub.server = server
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/v1", stub
