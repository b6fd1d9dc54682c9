"""Mock target: canned response after a fixed or uniform random delay; optional canned trace.

Settings: ``response`` (text; default echoes the eval id), ``delayMs`` / ``delay_ms``,
``delayMinMs``/``delayMaxMs`` (uniform), ``trace`` (list of trace events),
``output_messages``, ``usage``. For testing failure paths: ``error`` (every call fails
with that message, not retryable), ``fail_attempts: N`` (the first N attempts of each case
fail with a retryable 503, then it answers). As a judge (``request.purpose == "judge"``) it answers
with a JSON verdict (``judge_response`` setting, else a deterministic pseudo-score
derived from the prompt) so dry runs exercise the whole judge path offline.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import random
import time

from providers.base import BaseProvider, ConfigError, ProviderError, Request, Response, Usage
from providers.trace import events_from_dicts


class MockProvider(BaseProvider):
    kind = "mock"

    def check(self) -> None:
        lo, hi = self._delay_range()
        if lo < 0 or hi < lo:
            raise ConfigError(f"invalid delay range {lo}..{hi} ms", self.target.where, "delayMs")

    def _delay_range(self) -> tuple[float, float]:
        fixed = self.target.setting("delayMs", "delay_ms")
        if fixed is not None:
            return float(fixed), float(fixed)
        lo = float(self.target.setting("delayMinMs", "delay_min_ms", default=0))
        hi = float(self.target.setting("delayMaxMs", "delay_max_ms", default=lo))
        return lo, hi

    async def invoke(self, request: Request) -> Response:
        start = time.perf_counter()
        lo, hi = self._delay_range()
        delay = lo if hi == lo else random.uniform(lo, hi)
        if delay > 0:
            await asyncio.sleep(delay / 1000.0)
        self._maybe_fail(request)
        text = self._judge_text(request) if request.purpose == "judge" else self._answer(request)
        trace = self.target.setting("trace")
        usage = self.target.setting("usage")
        return Response(
            text=text,
            output_messages=self.target.setting("output_messages"),
            trace=events_from_dicts(trace) if isinstance(trace, list) else None,
            usage=Usage(**usage) if isinstance(usage, dict) else None,
            latency_ms=(time.perf_counter() - start) * 1000.0,
        )

    @staticmethod
    def _rubric_checks(request: Request, digest: bytes) -> dict:
        """A rubric judge's reply: each rubric id satisfied (or scored) deterministically."""
        checks = []
        for n, rubric_id in enumerate(request.metadata["rubric_ids"]):
            value = digest[n % len(digest)]
            check = {"id": rubric_id, "reasoning": "Dry-run mock judge."}
            if request.metadata.get("rubric_ranged"):
                check["score"] = 5 + value % 6
            else:
                check["satisfied"] = value % 4 != 0
            checks.append(check)
        return {"checks": checks, "overall_reasoning": "Dry-run mock judge: deterministic."}

    def _maybe_fail(self, request: Request) -> None:
        if request.purpose == "judge":
            return
        error = self.target.setting("error")
        if error:
            raise ProviderError(str(error), retryable=False, status=400)
        if request.attempt <= int(self.target.setting("fail_attempts", default=0)):
            raise ProviderError("mock transient failure", retryable=True, status=503)

    def _answer(self, request: Request) -> str:
        response = self.target.setting("response")
        if response is None:
            return f"Mock response for {request.eval_id}"
        return response if isinstance(response, str) else json.dumps(response)

    def _judge_text(self, request: Request) -> str:
        canned = self.target.setting("judge_response")
        if canned is not None:
            return canned if isinstance(canned, str) else json.dumps(canned)
        digest = hashlib.sha256(request.question.encode()).digest()
        if request.metadata.get("rubric_ids"):
            return json.dumps(self._rubric_checks(request, digest))
        score = round(0.5 + (digest[0] / 255.0) * 0.5, 2)
        return json.dumps({"score": score, "hits": ["mock judge: answer received"],
                           "misses": [] if score >= 0.8 else ["mock judge: deterministic miss"],
                           "reasoning": "Dry-run mock judge: deterministic pseudo-score."})
