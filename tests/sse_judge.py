"""A loopback OpenAI-compatible judge for the differential tests: real HTTP on 127.0.0.1,
``POST …/chat/completions`` answered with one fixed reply (or the reply a function of the
request's body chooses), as a plain JSON completion or — when
the request asks for ``stream`` (AgentV 4.x's pi-ai client does) — as server-sent chunks."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


class JudgeStub:
    def __init__(self, reply: str | Callable[[dict[str, Any]], str]) -> None:
        self.reply = reply
        self.requests: list[dict[str, Any]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"] or 0)))
                stub.requests.append({"path": self.path, "body": body})
                text = stub.reply(body) if callable(stub.reply) else stub.reply
                if body.get("stream"):
                    self._stream(text)
                else:
                    self._send(200, "application/json", json.dumps(stub.completion(text)))

            def _send(self, status: int, kind: str, text: str) -> None:
                data = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, text: str) -> None:
                events = [stub.chunk({"role": "assistant", "content": text}, None),
                          stub.chunk({}, "stop") | {"usage": stub.usage()}]
                text = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
                self._send(200, "text/event-stream", text)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def usage(self) -> dict[str, int]:
        return {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}

    def completion(self, text: str) -> dict[str, Any]:
        return {"id": "chatcmpl-judge", "object": "chat.completion", "created": 0,
                "model": "stub-judge", "usage": self.usage(),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}]}

    def chunk(self, delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
        return {"id": "chatcmpl-judge", "object": "chat.completion.chunk", "created": 0,
                "model": "stub-judge",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    def __enter__(self) -> "JudgeStub":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
