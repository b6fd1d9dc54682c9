"""The one judge call every LLM-based evaluator makes (llm_judge, rubric, composite's
llm_judge aggregator, categorical_judge — YAML and typed): prompt → the judge target →
the reply parsed by the evaluator's output contract. Every failure is handled here, once:

* transient provider failures (429, 5xx, timeouts) are retried by the judge's retry policy
  (``providers.llm.retry``, the one retry layer: backoff, jitter, ``Retry-After``); a judge
  given as a bare provider gets the default policy;
* a reply that breaks the contract is asked again as the ask's ``Reasking`` says: by default
  once, the reply and a reminder of the contract appended to the chat; AgentV 4.42.4's
  llm-grader asks the same prompt three times, then once more with a prompt asking to repair
  the last broken reply (``REASK_4``);
* a judge that still fails raises ``JudgeError``, which ``run_evaluator`` turns into the
  evaluator's error result — the same shape for every judge-based evaluator: score 0,
  ``error``, the ``evaluator_provider_request``, ``details.raw_reply`` for a broken reply,
  the usage spent and ``judge_call {attempts, asks, wait_ms}``.

A call that needed more than one attempt or ask reports ``judge_call`` on its result too.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Generic, TypeVar

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorFailure, EvaluatorResult
from agentv.providers.base import JudgeInputs, Provider, Request, Usage
from agentv.providers.errors import ProviderError
from agentv.providers.llm.retry import RetryingProvider, RetryPolicy

T = TypeVar("T")
REASK = ("Your reply did not follow the required output format. Reply again with only "
         "{contract}, and no other text.")


@dataclass
class JudgeCall:
    """What it took: provider calls made (retries included), prompts sent (2 after a broken
    reply) and the time waited between attempts."""

    attempts: int = 0
    asks: int = 0
    wait_ms: float = 0.0

    def to_record(self) -> dict[str, Any]:
        return {"attempts": self.attempts, "asks": self.asks, "wait_ms": round(self.wait_ms, 3)}

    @property
    def notable(self) -> bool:
        return self.attempts > 1 or self.asks > 1


@dataclass(frozen=True)
class Reasking:
    """How a broken reply is asked again: ``asks`` of the prompt in all; ``continued``: each
    re-ask appends the reply and a reminder to the chat (else the same prompt again);
    ``repair``: then one more ask, given (why, the last broken reply), when it was not empty."""
    asks: int = 2
    continued: bool = True
    repair: Callable[[str, str], str] | None = None


REASK_ONCE = Reasking()


@dataclass
class JudgeAsk:
    """What an evaluator asks its judge: prompts, the output contract (for the re-ask) and
    the inputs as data (``Request.judge``)."""

    system: str
    prompt: str
    contract: str
    inputs: JudgeInputs | None = None
    recorded: dict[str, Any] = field(default_factory=dict)  # extra evaluator_provider_request keys
    reasking: Reasking = REASK_ONCE


@dataclass
class JudgeReply(Generic[T]):
    text: str
    verdict: T  # the reply parsed by the evaluator's contract
    usage: Usage | None
    provider_request: dict[str, Any]  # what the record keeps: prompts and the judge's name
    call: JudgeCall


class BrokenReply(ValueError):
    """Raised by a reply parser for a reply that breaks the contract in a way worth naming
    (a score on another scale): asked again like any broken reply, and named if it stays."""


class JudgeError(EvaluatorFailure):
    """The judge failed after its retries, or broke the output contract twice."""


def judge_request(eval_id: str, ask: JudgeAsk, *, attempt: int = 1, trial: int = 0) -> Request:
    return Request(eval_id=eval_id, question=ask.prompt, system_prompt=ask.system,
                   chat=[{"role": "system", "content": ask.system},
                         {"role": "user", "content": ask.prompt}],
                   attempt=attempt, trial=trial, purpose="judge", response_format="json",
                   judge=ask.inputs)


async def ask_judge(ctx: EvalContext, ask: JudgeAsk, parse: Callable[[str], T | None]
                    ) -> JudgeReply[T]:
    """Ask the case's judge; ``parse`` returns None for a reply that breaks the contract."""
    if ctx.judge is None:
        raise RuntimeError("no judge target is available for this case")
    recorded = {**ask.recorded, "user_prompt": ask.prompt, "system_prompt": ask.system,
                "target": ctx.judge_name}
    request = judge_request(ctx.eval_id, ask, attempt=ctx.attempt, trial=ctx.trial)
    return await call_judge(ctx.judge, request, parse, ask.contract, recorded, ask.reasking)


async def call_judge(judge: Provider, request: Request, parse: Callable[[str], T | None],
                     contract: str, recorded: dict[str, Any],
                     reasking: Reasking = REASK_ONCE) -> JudgeReply[T]:
    retrying = judge if isinstance(judge, RetryingProvider) else RetryingProvider(
        judge, RetryPolicy())
    call = JudgeCall()
    state: dict[str, Any] = {"usage": None, "text": "", "why": ""}
    requests = [request] * reasking.asks
    for number in range(reasking.asks):
        reply = await _asked(retrying, requests[number], parse, recorded, call, state)
        if reply is not None:
            return reply
        if reasking.continued and number + 1 < reasking.asks:
            requests[number + 1] = _reasked(requests[number], state["text"], contract)
    if reasking.repair is not None and state["text"].strip():
        prompt = reasking.repair(state["why"] or f"expected {contract}", state["text"])
        reply = await _asked(retrying, _repair_request(request, prompt), parse, recorded, call,
                             state)
        if reply is not None:
            return reply
    times = "twice" if call.asks == 2 else f"in {call.asks} asks"
    why = f"{state['why']}; " if state["why"] else ""
    raise JudgeError(f"judge reply broke the output contract {times} ({why}expected {contract})",
                     details={"raw_reply": state["text"]},
                     **_failure(recorded, state["usage"], call))


async def _asked(retrying: RetryingProvider, request: Request, parse: Callable[[str], T | None],
                 recorded: dict[str, Any], call: JudgeCall, state: dict[str, Any]
                 ) -> JudgeReply[T] | None:
    """One ask: the reply parsed (None: it broke the contract; ``state`` keeps why)."""
    call.asks += 1
    try:
        response, attempts = await retrying.invoke_counted(request)
    except Exception as err:  # noqa: BLE001 - every judge failure gets one shape
        call.attempts += getattr(err, "attempts", 1)
        call.wait_ms += getattr(err, "wait_ms", 0.0)
        raise JudgeError(f"judge '{retrying.name}' failed after {call.attempts} attempt(s): "
                         f"{_message(err)}", **_failure(recorded, state["usage"], call)) from err
    call.attempts += attempts
    call.wait_ms += response.wait_ms
    state["usage"], state["text"] = _added(state["usage"], response.usage), response.text
    try:
        verdict, state["why"] = parse(response.text), ""
    except BrokenReply as err:
        verdict, state["why"] = None, str(err)
    return None if verdict is None else JudgeReply(response.text, verdict, state["usage"],
                                                   recorded, call)


def _repair_request(request: Request, prompt: str) -> Request:
    return Request(eval_id=request.eval_id, question=prompt,
                   system_prompt=request.system_prompt,
                   chat=[{"role": "system", "content": request.system_prompt or ""},
                         {"role": "user", "content": prompt}],
                   attempt=request.attempt, trial=request.trial, purpose="judge",
                   response_format=request.response_format, judge=request.judge)


def judged(evaluator: Evaluator, reply: JudgeReply[Any], score: float, hits: list[str],
           misses: list[str], reasoning: str, **kw: Any) -> EvaluatorResult:
    """The evaluator's result from a valid reply, with the request and usage recorded."""
    return evaluator.result(score, hits, misses, reasoning, **judged_fields(reply), **kw)


def judged_fields(reply: JudgeReply[Any]) -> dict[str, Any]:
    return {"evaluator_provider_request": reply.provider_request, "usage": reply.usage,
            "judge_call": reply.call.to_record() if reply.call.notable else None}


def _failure(recorded: dict[str, Any], usage: Usage | None, call: JudgeCall) -> dict[str, Any]:
    return {"evaluator_provider_request": recorded, "usage": usage,
            "judge_call": call.to_record()}


def _message(err: Exception) -> str:
    if isinstance(err, ProviderError):
        return str(err) or type(err).__name__
    return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__


def _reasked(request: Request, reply: str, contract: str) -> Request:
    reminder = REASK.format(contract=contract)
    return Request(eval_id=request.eval_id, question=f"{request.question}\n\n{reminder}",
                   system_prompt=request.system_prompt,
                   chat=[*request.chat, {"role": "assistant", "content": reply},
                         {"role": "user", "content": reminder}],
                   attempt=request.attempt, trial=request.trial, purpose="judge",
                   response_format=request.response_format, judge=request.judge)


def _added(total: Usage | None, more: Usage | None) -> Usage | None:
    if total is None or more is None:
        return more or total

    def plus(a: float | int | None, b: float | int | None) -> Any:
        return None if a is None and b is None else (a or 0) + (b or 0)
    return Usage(plus(total.input_tokens, more.input_tokens),
                 plus(total.output_tokens, more.output_tokens),
                 plus(total.cost_usd, more.cost_usd), plus(total.cached_tokens,
                                                           more.cached_tokens))
