"""Loopback stub of four LLM wire formats, for tests: real HTTP on 127.0.0.1, random port.

    base_url, stub = start_stub(latency_ms=20, fail_429=0.2, retry_after=1)
    ...                      # point targets at base_url (see the routes below)
    stub.requests            # every request: wire, path, query, headers, body, at, status
    stub.violations          # requests that came back sooner than their Retry-After
    stub.stop()

Routes (matched on the path suffix, so any base path works):
  POST .../openai/deployments/{deployment}/chat/completions?api-version=...   wire "azure"
  POST .../chat/completions                                                   wire "openai"
  POST .../v1/messages                                                        wire "anthropic"
  POST .../models/{model}:generateContent                                     wire "gemini"

Answers are deterministic: "The answer is N." when the last user message holds
"A + B"; a JSON verdict when the prompt is an llm_judge prompt (it mentions a "score"
field); otherwise an echo. ``reply``/``judge_reply`` override both; ``reply_body`` (a
whole JSON body, e.g. a vendor's own example reply) is sent as it is instead.

Faults (keyword arguments of ``start_stub`` or ``stub.configure``):
  script       list of actions consumed one per completion request, then normal
               answers: 200, 401, 403, 400, 429 (with Retry-After), 500, 503,
               "slow" (sleep ``slow_s`` then answer), "malformed" (200, broken JSON),
               "drop" (close the connection without a reply)
  fail_429     fraction of requests answered 429 with ``Retry-After: retry_after``
  fail_500     fraction of requests answered 500 (seeded RNG, reproducible)
  fail_drop    fraction of connections closed without a reply
  latency_ms   delay before every answer (the median when latency_sigma > 0)
  latency_sigma  lognormal spread of the delay (tests/stub_wire.py: sigma_for(p50, p99))
More wire-exact actions (context_length, content_filter, tool_use, cached): stub_wire.py.
A request is "the same" as an earlier one when its body bytes are equal; such a
request arriving sooner than the Retry-After of the 429 it got is a violation.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import random
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from aiohttp import web

from tests.stub_wire import ACTIONS, fault_reply, sample_ms

ADD_RE = re.compile(r"(-?\d+)\s*\+\s*(-?\d+)")
JUDGE_VERDICT = {"score": 1.0, "hits": ["stub judge: answer received"], "misses": [],
                 "reasoning": "Stub judge verdict."}
DEFAULTS: dict[str, Any] = {"script": [], "fail_429": 0.0, "fail_500": 0.0, "fail_drop": 0.0,
                            "retry_after": 1.0, "latency_sigma": 0.0,
                            "latency_ms": 0.0, "slow_s": 5.0, "reply": None,
                            "judge_reply": None, "reply_body": None, "seed": 0}


@dataclass
class Recorded:
    wire: str
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]  # lower-case names
    body: Any  # parsed JSON, or the raw text when it is not JSON
    at: float  # time.monotonic() at arrival
    status: int | None = None  # the status answered (None for a dropped connection)
    peer: Any = None  # the client's (host, port): one per TCP connection
    latency_ms: float = 0.0  # the delay this request was given


@dataclass
class StubLLM:
    faults: dict[str, Any] = field(default_factory=lambda: dict(DEFAULTS))
    requests: list[Recorded] = field(default_factory=list)
    violations: list[dict[str, Any]] = field(default_factory=list)
    inflight: int = 0
    max_inflight: int = 0
    base_url: str = ""

    def __post_init__(self) -> None:
        self._rng = random.Random(self.faults["seed"])
        self._latency_rng = random.Random(self.faults["seed"])
        self._not_before: dict[str, float] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ control
    def configure(self, **faults: Any) -> None:
        unknown = set(faults) - set(DEFAULTS)
        if unknown:
            raise TypeError(f"unknown stub faults: {sorted(unknown)}")
        with self._lock:
            self.faults.update(faults)
            self.faults["script"] = list(self.faults["script"])
            if "seed" in faults:
                self._rng = random.Random(faults["seed"])
                self._latency_rng = random.Random(faults["seed"])

    def reset(self) -> None:
        """Forget recorded requests and restore the default faults."""
        with self._lock:
            self.faults = dict(DEFAULTS, script=[])
            self._rng = random.Random(self.faults["seed"])
            self.requests.clear()
            self.violations.clear()
            self._not_before.clear()
            self.max_inflight = self.inflight

    def completions(self) -> list[Recorded]:
        return [r for r in self.requests if r.wire != "unknown"]

    def stop(self) -> None:
        if self._loop is None:
            return
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop = None

    # ------------------------------------------------------------------ serving
    def _next_action(self) -> Any:
        with self._lock:
            if self.faults["script"]:
                return self.faults["script"].pop(0)
            roll = self._rng.random()
        if roll < self.faults["fail_429"]:
            return 429
        if roll < self.faults["fail_429"] + self.faults["fail_500"]:
            return 500
        if roll < self.faults["fail_429"] + self.faults["fail_500"] + self.faults["fail_drop"]:
            return "drop"
        return 200

    def _check_retry_after(self, key: str, now: float) -> None:
        with self._lock:
            earliest = self._not_before.pop(key, None)
        if earliest is not None and now < earliest - 0.005:
            self.violations.append({"early_by_s": round(earliest - now, 4), "key": key[:12]})

    async def handle(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        now = time.monotonic()
        rec = Recorded(wire=wire_of(request.path), method=request.method, path=request.path,
                       query=dict(request.query),
                       headers={k.lower(): v for k, v in request.headers.items()},
                       body=_parse(raw), at=now,
                       peer=request.transport.get_extra_info("peername")
                       if request.transport else None)
        self.requests.append(rec)
        if rec.wire == "unknown":
            rec.status = 404
            return web.json_response({"error": {"message": f"no route {request.path}"}},
                                     status=404)
        key = hashlib.sha256(raw).hexdigest()
        self._check_retry_after(key, now)
        self.inflight += 1
        self.max_inflight = max(self.max_inflight, self.inflight)
        try:
            return await self._answer(request, rec, key)
        finally:
            self.inflight -= 1

    async def _answer(self, request: web.Request, rec: Recorded, key: str) -> web.StreamResponse:
        action = self._next_action()
        if self.faults["latency_ms"]:
            rec.latency_ms = sample_ms(self._latency_rng, self.faults["latency_ms"],
                                       self.faults["latency_sigma"])
            await asyncio.sleep(rec.latency_ms / 1000.0)
        if action == "slow":
            await asyncio.sleep(self.faults["slow_s"])
            action = 200
        if action == "drop":
            request.transport.close()
            raise ConnectionResetError("stub dropped the connection")
        if action == "malformed":
            rec.status = 200
            return web.Response(text='{"id": "broken", "choices": [', status=200,
                                content_type="application/json")
        if action in ACTIONS:
            rec.status, body = fault_reply(action, rec.wire, reply_body(rec, self.faults))
            return web.json_response(body, status=rec.status)
        if action != 200:
            return self._error(rec, int(action), key)
        rec.status = 200
        return web.json_response(self.faults["reply_body"] or reply_body(rec, self.faults))

    def _error(self, rec: Recorded, status: int, key: str) -> web.Response:
        rec.status = status
        headers = {}
        if status == 429:
            retry_after = float(self.faults["retry_after"])
            headers["Retry-After"] = f"{retry_after:g}"
            with self._lock:
                self._not_before[key] = time.monotonic() + retry_after
        return web.json_response(error_body(rec.wire, status, presented_key(rec.headers)),
                                 status=status, headers=headers)


# ---------------------------------------------------------------------- wire formats
def wire_of(path: str) -> str:
    if re.search(r"/openai/deployments/[^/]+/chat/completions$", path):
        return "azure"
    if path.endswith("/chat/completions"):
        return "openai"
    if path.endswith("/messages"):
        return "anthropic"
    if path.endswith(":generateContent"):
        return "gemini"
    return "unknown"


def _parse(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return raw.decode("utf-8", "replace")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text(p.get("text", "")) if isinstance(p, dict) else str(p)
                         for p in content)
    return "" if content is None else str(content)


def prompt_texts(wire: str, body: dict[str, Any]) -> tuple[str, str]:
    """(all prompt text, last user text) of a request body in any of the four formats."""
    if wire == "gemini":
        turns = [(c.get("role", "user"), _text(c.get("parts"))) for c in body.get("contents", [])]
        system = _text((body.get("system_instruction") or body.get("systemInstruction")
                        or {}).get("parts"))
    else:
        turns = [(m.get("role"), _text(m.get("content"))) for m in body.get("messages", [])]
        system = _text(body.get("system"))
    last_user = next((t for r, t in reversed(turns) if r == "user"), "")
    return "\n".join([system] + [t for _, t in turns]), last_user


def answer_for(prompt: str, last_user: str, faults: dict[str, Any]) -> str:
    if '"score"' in prompt:
        verdict = faults["judge_reply"]
        if verdict is None:
            return json.dumps(JUDGE_VERDICT)
        return verdict if isinstance(verdict, str) else json.dumps(verdict)
    reply: str | Callable[[str], str] | None = faults["reply"]
    if reply is not None:
        return reply(last_user) if callable(reply) else reply
    matches = list(ADD_RE.finditer(last_user))
    if matches:
        a, b = matches[-1].groups()
        return f"The answer is {int(a) + int(b)}."
    return f"echo: {last_user[-80:]}"


def reply_body(rec: Recorded, faults: dict[str, Any]) -> dict[str, Any]:
    body = rec.body if isinstance(rec.body, dict) else {}
    prompt, last_user = prompt_texts(rec.wire, body)
    text = answer_for(prompt, last_user, faults)
    n_in, n_out = max(1, len(prompt) // 4), max(1, len(text) // 4)
    model = body.get("model") or rec.path.rsplit("/", 1)[-1].split(":")[0]
    if rec.wire == "anthropic":
        return {"id": "msg_stub", "type": "message", "role": "assistant", "model": model,
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                "stop_sequence": None, "usage": {"input_tokens": n_in, "output_tokens": n_out}}
    if rec.wire == "gemini":
        return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                                "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": n_in, "candidatesTokenCount": n_out,
                                  "totalTokenCount": n_in + n_out},
                "modelVersion": model}
    return {"id": "chatcmpl-stub", "object": "chat.completion", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": n_in, "completion_tokens": n_out,
                      "total_tokens": n_in + n_out}}


def presented_key(headers: dict[str, str]) -> str:
    bearer = headers.get("authorization", "").removeprefix("Bearer ")
    return (headers.get("api-key") or headers.get("x-api-key")
            or headers.get("x-goog-api-key") or bearer)


def error_body(wire: str, status: int, key: str = "") -> dict[str, Any]:
    """Like real APIs, a 401 names the key it got (tests check agentv hides it)."""
    message = {401: f"invalid api key: {key}", 403: "forbidden", 429: "rate limited",
               400: "bad request"}.get(status, "server error")
    if wire == "anthropic":
        return {"type": "error", "error": {"type": "stub_error", "message": message}}
    if wire == "gemini":
        return {"error": {"code": status, "message": message, "status": "STUB"}}
    return {"error": {"message": message, "type": "stub_error", "code": str(status)}}


# ---------------------------------------------------------------------- lifecycle
def start_stub(**faults: Any) -> tuple[str, StubLLM]:
    """Start a stub on 127.0.0.1 (random port) in a background thread."""
    logging.getLogger("aiohttp.server").setLevel(logging.CRITICAL)  # "drop" is on purpose
    stub = StubLLM()
    stub.configure(**faults)
    started = threading.Event()
    errors: list[BaseException] = []

    def serve() -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        stub._loop = loop
        try:
            app = web.Application(client_max_size=64 * 1024 * 1024)
            app.router.add_route("*", "/{tail:.*}", stub.handle)
            stub._runner = web.AppRunner(app, access_log=None, handle_signals=False)
            loop.run_until_complete(stub._runner.setup())
            site = web.TCPSite(stub._runner, "127.0.0.1", 0)
            loop.run_until_complete(site.start())
            port = site._server.sockets[0].getsockname()[1]
            stub.base_url = f"http://127.0.0.1:{port}"
        except BaseException as err:  # noqa: BLE001 - reported to the caller
            errors.append(err)
            started.set()
            return
        started.set()
        loop.run_forever()
        loop.close()

    stub._thread = threading.Thread(target=serve, name="stub-llm", daemon=True)
    stub._thread.start()
    started.wait(10)
    if errors:
        raise errors[0]
    return stub.base_url, stub


if __name__ == "__main__":  # python tests/stub_llm.py: serve until Ctrl-C
    url, _stub = start_stub()
    print(url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        _stub.stop()
