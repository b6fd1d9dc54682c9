"""The one judge call, for all four judge-based evaluators (llm_judge, rubric, composite's
llm_judge aggregator, categorical_judge), against a loopback server speaking OpenAI's chat
completions wire format: a 429 with Retry-After is waited out and retried, a reply that
breaks the contract is asked again once, and a judge that keeps failing is the evaluator's
error with one record shape for every kind."""
from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import pytest
from aiohttp import web

from agentv.evaluators.base import AGENTV4, EvalContext, run_evaluator
from agentv.evaluators.llm_judge import LlmJudge
from agentv.evaluators.registry import build_evaluator
from agentv.providers.base import Target
from agentv.providers.llm.openai import OpenAIHTTPProvider
from agentv.providers.llm.retry import RetryingProvider, RetryPolicy

VERDICT = {"score": 0.9, "hits": ["names Paris"], "misses": [], "reasoning": "right"}
KINDS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {  # config, a valid reply
    "llm_judge": ({"type": "llm_judge"}, VERDICT),
    "rubric": ({"type": "rubric", "rubrics": ["Names Paris"]},
               {"checks": [{"id": "rubric-1", "satisfied": True, "reasoning": "yes"}],
                "overall_reasoning": "all met"}),
    "composite": ({"type": "composite", "evaluators": [{"type": "contains", "value": "Paris"}],
                   "aggregator": {"type": "llm_judge"}}, VERDICT),
    "categorical_judge": ({"type": "categorical_judge"}, {"rating": "good", "reason": "ok"}),
}


class ScriptedJudge:
    """A loopback /v1/chat/completions server answering from a script of actions:
    ``(429, seconds)`` (Retry-After), ``(503, 0)``, or a reply text (200)."""

    def __init__(self) -> None:
        self.script: list[Any] = []
        self.bodies: list[dict[str, Any]] = []
        self.times: list[float] = []
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()
        self.ready.wait(10)

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self.answer)
        self.runner = web.AppRunner(app)
        self.loop.run_until_complete(self.runner.setup())
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        self.loop.run_until_complete(site.start())
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.ready.set()
        self.loop.run_forever()

    async def answer(self, request: web.Request) -> web.Response:
        self.bodies.append(await request.json())
        self.times.append(time.monotonic())
        action = self.script.pop(0) if self.script else "no script left"
        if isinstance(action, tuple):
            status, wait = action
            return web.json_response({"error": {"message": f"stub {status}", "type": "x"}},
                                     status=status, headers={"Retry-After": f"{wait:g}"})
        text = action if isinstance(action, str) else json.dumps(action)
        return web.json_response({
            "id": "cmpl-1", "object": "chat.completion", "model": "judge-model",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}})

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)


@pytest.fixture(scope="module")
def server():
    s = ScriptedJudge()
    yield s
    s.stop()


@pytest.fixture(autouse=True)
def fresh(server):
    server.script, server.bodies, server.times = [], [], []


def evaluate(server: ScriptedJudge, kind: str, script: list[Any], retries: int = 3,
             evaluator: Any = None):
    server.script = list(script)
    provider = OpenAIHTTPProvider(Target("judge", "openai", {
        "base_url": f"http://127.0.0.1:{server.port}/v1", "model": "judge-model",
        "api_key": "sk-test"}))
    judge = RetryingProvider(provider, RetryPolicy(max_retries=retries, initial_delay_ms=10))
    ctx = EvalContext(eval_id="c1", question="Capital of France?", candidate_answer="Paris",
                      expected_outcome="Names Paris", reference_answer="Paris", judge=judge,
                      judge_name="judge")

    async def go():
        try:
            return await run_evaluator(
                evaluator or build_evaluator(KINDS[kind][0], where="s.yaml:1"), ctx)
        finally:
            await judge.aclose()
    return asyncio.run(go())


@pytest.mark.parametrize("kind", KINDS)
def test_429_with_retry_after_then_ok(server, kind):
    result = evaluate(server, kind, [(429, 0.3), KINDS[kind][1]])
    assert result.error is None and result.score > 0.5 and result.verdict == "pass"
    assert len(server.bodies) == 2 and server.bodies[0] == server.bodies[1]
    assert server.times[1] - server.times[0] >= 0.3  # Retry-After honoured
    assert result.judge_call["attempts"] == 2 and result.judge_call["asks"] == 1
    assert result.judge_call["wait_ms"] >= 300
    assert result.usage.input_tokens == 50  # the answered call's usage


@pytest.mark.parametrize("kind", KINDS)
def test_malformed_reply_is_asked_again_once_then_ok(server, kind):
    result = evaluate(server, kind, ["Looks fine to me, 8/10.", KINDS[kind][1]])
    assert result.error is None and result.verdict == "pass"
    assert result.judge_call == {"attempts": 2, "asks": 2, "wait_ms": 0.0}
    first, again = (b["messages"] for b in server.bodies)
    assert again[:len(first)] == first  # the same conversation, continued
    assert again[-2] == {"role": "assistant", "content": "Looks fine to me, 8/10."}
    assert "did not follow the required output format" in again[-1]["content"]
    assert result.usage.input_tokens == 100 and result.usage.output_tokens == 20  # both asks
    # the record keeps the prompt as first asked
    assert result.evaluator_provider_request["user_prompt"] == first[-1]["content"]


def failure_shape(result) -> tuple:
    record = result.to_record()
    record.pop("evaluator_results", None)  # composite keeps its members' results
    return (tuple(sorted(record)), record["score"], record["verdict"],
            tuple(sorted(record["judge_call"])),
            record["misses"][0].split(": ", 1)[0], record["reasoning"].split(": ", 1)[0])


def test_persistent_failures_are_the_evaluators_error_with_one_shape(server):
    broken = {k: evaluate(server, k, ["no verdict", "still none"]) for k in KINDS}
    down = {k: evaluate(server, k, [(503, 0)] * 3, retries=2) for k in KINDS}
    for results, calls in ((broken, {"attempts": 2, "asks": 2, "wait_ms": 0.0}),
                           (down, None)):
        shapes = {failure_shape(r) for r in results.values()}
        assert len(shapes) == 1, shapes  # identical for llm_judge, rubric, composite, categorical
        for result in results.values():
            assert result.score == 0 and result.verdict == "fail"
            assert result.error.startswith("JudgeError: ")
            assert result.evaluator_provider_request["target"] == "judge"
            if calls:
                assert result.judge_call == calls
    for result in broken.values():
        assert "broke the output contract twice" in result.error
        assert result.details == {"raw_reply": "still none"}
    for result in down.values():
        assert "judge 'judge' failed after 3 attempt(s): " in result.error
        assert "HTTP 503" in result.error and result.judge_call["attempts"] == 3
    assert down["composite"].children[0].score == 1.0  # members still recorded


def test_a_non_retryable_judge_error_is_not_retried(server):
    result = evaluate(server, "llm_judge", [(401, 0)])
    assert "failed after 1 attempt(s)" in result.error and len(server.bodies) == 1
    assert "sk-test" not in json.dumps(result.to_record())


GRADED_4 = {"score": 0.75, "assertions": [{"text": "names Paris", "passed": True}]}


def test_agentv4_asks_three_times_then_asks_to_repair_the_last_reply(server):
    """AgentV 4.42.4's llm-grader: the same prompt three times, then one request to repair
    the last broken reply (its system prompt kept), whose answer is the verdict."""
    four = {"evaluator": LlmJudge.model_validate({"type": "llm-grader"},
                                                 context={"generation": AGENTV4})}
    broken = ["no verdict", {"assertions": []}, {"score": 2}]
    result = evaluate(server, "llm_judge", [*broken, GRADED_4], **four)
    assert result.error is None and result.score == 0.75
    assert result.judge_call == {"attempts": 4, "asks": 4, "wait_ms": 0.0}
    asks = [b["messages"] for b in server.bodies]
    assert asks[0] == asks[1] == asks[2]  # the same prompt, not a continued chat
    assert asks[3][0] == asks[0][0] and len(asks[3]) == 2  # the system prompt kept
    repair = asks[3][1]["content"]
    assert repair.startswith("The following evaluation response has useful grading content")
    assert repair.endswith('Invalid response:\n{"score": 2}')
    still = evaluate(server, "llm_judge", [*broken, "nothing better"], **four)
    assert still.score == 0 and "broke the output contract in 4 asks" in still.error
    server.bodies.clear()
    empty = evaluate(server, "llm_judge", ["x", "y", " "], **four)  # nothing to repair
    assert empty.judge_call["asks"] == 3 and len(server.bodies) == 3


def test_agentv4_rubrics_ask_again_as_4_42_4_does(server):
    from agentv.evaluators.rubric import RubricEvaluator
    rubrics = RubricEvaluator.model_validate({"type": "rubrics", "rubrics": ["Names Paris"]},
                                             context={"generation": AGENTV4})
    result = evaluate(server, "rubric", ["x", "y", "z", KINDS["rubric"][1]], evaluator=rubrics)
    assert result.error is None and result.score == 1.0
    assert result.judge_call == {"attempts": 4, "asks": 4, "wait_ms": 0.0}
