"""Mock target: canned response after a fixed or uniform random delay; optional canned trace.

Settings: ``response`` (text; default echoes the eval id), ``delayMs`` / ``delay_ms``,
``delayMinMs``/``delayMaxMs`` (uniform), ``trace`` (list of trace events),
``output_messages``, ``usage``. For testing failure paths: ``error`` (every call fails
with that message, not retryable), ``fail_attempts: N`` (the first N attempts of each case
fail with a retryable 503, then it answers). As a judge (``request.purpose == "judge"``) it answers
with a JSON verdict: the ``judge_response`` setting, else the offline heuristic judge
(providers/heuristic_judge.py: key-term hits and misses of the answer against the expected
outcome and reference, labelled as such; a rating label for a categorical judge) so dry
runs exercise the whole judge path offline.
Judge requests without typed inputs (``request.judge``: answer, expected outcome,
reference, rubric items) get a neutral, labelled 0.5.
"""
from __future__ import annotations

import asyncio
import json
import random
import time

from agentv.providers import heuristic_judge
from agentv.providers.base import BaseProvider, ConfigError, ProviderError, Request, Response, Usage
from agentv.providers.facts import ProviderFacts
from agentv.providers.mock_settings import MockSettings
from agentv.providers.trace import events_from_dicts


class MockProvider(BaseProvider):
    """Canned answers after a fixed or random delay (`response`, `delayMs`, `trace`, `usage`);
    as a judge, the offline heuristic judge. No network."""
    kind = "mock"
    facts = ProviderFacts("mock", settings=MockSettings)

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
        inputs = request.judge
        if inputs is None:
            return json.dumps({"score": 0.5, "hits": [], "misses": [], "reasoning":
                               f"{heuristic_judge.OFFLINE_LABEL}: this judge does not hand "
                               "over the answer; neutral score 0.5."})
        if inputs.rubric:
            return json.dumps(heuristic_judge.rubric_checks(
                inputs.candidate_answer, [(c.id, c.text) for c in inputs.rubric],
                inputs.ranged))
        answer = heuristic_judge.rating if inputs.criterion else heuristic_judge.judge
        return json.dumps(answer(inputs.candidate_answer, inputs.expected_outcome,
                                 inputs.reference_answer))
