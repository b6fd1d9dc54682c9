"""A case with a conversation (``EvalCase.conversation``, AgentV 4.42.4's ``mode:
conversation``) run turn by turn, as AgentV's ``runConversationMode``: the history starts with
the case's input messages; each turn adds its user input, the target is called with the
(windowed) history, its answer is added and graded by the turn's evaluators. A turn without
evaluators scores 1; a target failure scores the turn 0 ("Provider error: …"); with
``on_turn_failure: stop`` the turns after one scoring below the threshold are skipped (0).
The case's own evaluators then grade the whole transcript (``conversation``). The case's
score aggregates the turns' and that score (mean, min, max); its status is ``ok`` at the
threshold, else ``quality_failure`` — never an execution error.

The record has AgentV's keys for such a test (``timestamp``, ``test_id``, ``suite``,
``category``, ``score``, ``target``, ``scores``, ``execution_status``, ``metadata`` when the
test has some: no usage, duration or conversation_id, as 4.42.4 writes none), ``scores``
holding one entry per turn (``turn-<n>``, type ``rubrics``, no weight) and ``conversation``,
each with its graders' entries in ``scores``. The target is called through the retry layer;
an agent's workspace is its own per call (not handed over), and no prompt/trace dumps are
written for a conversation."""
from __future__ import annotations

import asyncio
import dataclasses
import time
from typing import Any, Callable

from agentv.evaluators.base import EvalContext, EvaluatorResult, run_evaluator
from agentv.evaluators.outcome4 import DEFAULT_THRESHOLD, STATUS_VERDICTS, grader_verdict
from agentv.providers.base import Request, Response, Usage
from agentv.tasks.engine.record4 import assertion_items, score_entry
from agentv.tasks.engine.record_parts import error_message
from agentv.tasks.load.conversation import Conversation, Turn, aggregate
from agentv.tasks.load.generation import FORMAT_KEY
from agentv.tasks.plan.expand import Job, build_request, message_text
from agentv.tasks.plan.prompts import DEFAULT_SYSTEM_PROMPT

SKIPPED = "Skipped due to previous turn failure"


@dataclasses.dataclass
class Graded:
    """One entry of the record's ``scores``: a turn or the conversation."""

    name: str
    score: float
    verdict: str
    assertions: list[dict[str, Any]]
    results: list[EvaluatorResult] | None = None  # its graders (None: no ``scores``)

    def entry(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "type": "rubrics", "score": self.score,
                               "verdict": self.verdict, "assertions": self.assertions}
        if self.results is not None:
            out["scores"] = [score_entry(r) for r in self.results]
        return out

    def result(self) -> EvaluatorResult:
        """The entry as an evaluator result (the engine's summary, Parquet and JUnit)."""
        return EvaluatorResult(
            name=self.name, type="rubrics", score=self.score, verdict=self.verdict,
            hits=[str(a.get("text")) for a in self.assertions if a.get("passed")],
            misses=[str(a.get("text")) for a in self.assertions if not a.get("passed")],
            assertions=self.assertions, children=self.results)


def turn_score(results: list[EvaluatorResult], evaluators: list[Any], limit: float) -> float:
    """AgentV's score of graded answers: 0 when a required one is below its minimum, else
    the weighted mean of those that did not skip (0 when none)."""
    if any((minimum := getattr(e, "minimum", lambda _t: None)(limit)) is not None
           and r.score < minimum for e, r in zip(evaluators, results)):
        return 0.0
    scorable = [r for r in results if grader_verdict(r) != "skip"]
    total = sum(r.weight for r in scorable)
    return sum(r.score * r.weight for r in scorable) / total if total > 0 else 0.0


def verdict(score: float, limit: float) -> str:
    return "pass" if score >= limit else "fail"


def transcript(history: list[dict[str, Any]]) -> str:
    return "\n\n".join(f"{m['role']}: {m['content']}" for m in history)


class ConversationRun:
    """One job's conversation: its history, graded turns and the target's usage.
    ``runtime``: the job's ``case_runner.TargetRuntime``; ``base_record``: the runner's
    common record fields of (job, runtime, request)."""

    def __init__(self, job: Job, runtime: Any, base_record: Callable[..., dict[str, Any]]
                 ) -> None:
        self.job, self.case, self.runtime, self.base_record = job, job.case, runtime, base_record
        self.conversation: Conversation = job.case.conversation  # type: ignore[assignment]
        self.limit = DEFAULT_THRESHOLD if self.case.threshold is None else self.case.threshold
        self.request = build_request(self.case, is_agent=self.runtime.is_agent,
                                     trial=job.trial)
        self.history = [{"role": m.role, "content": message_text(m)}
                        for m in self.case.input_messages]
        self.graded: list[Graded] = []
        self.usage = Usage()
        self.attempts = 0
        self.started = time.perf_counter()

    async def run(self) -> dict[str, Any]:
        """The conversation's record."""
        self.started = time.perf_counter()
        stopped = False
        for index, turn in enumerate(self.conversation.turns, 1):
            if stopped:
                self.graded.append(Graded(f"turn-{index}", 0.0, "skip",
                                          [{"text": SKIPPED, "passed": False}]))
                continue
            graded = await self.turn(index, turn)
            self.graded.append(graded)
            stopped = (self.conversation.on_turn_failure == "stop"
                       and graded.score < self.limit)
        if self.case.evaluators:
            self.graded.append(await self.whole())
        return self.record(self.started)

    def turn_request(self, index: int, text: str) -> Request:
        chat = self.conversation.window(self.history)
        sent = chat if any(m["role"] == "system" for m in chat) else [
            {"role": "system", "content": DEFAULT_SYSTEM_PROMPT}, *chat]  # as AgentV's LLMs
        return dataclasses.replace(
            self.request, eval_id=f"{self.case.id}/turn-{index}", question=text,
            chat=[] if self.runtime.is_agent else sent, chat_prompt=chat, system_prompt=None,
            guidelines="", guideline_paths=[], input_files=[], input_messages=chat,
            hand_over_workspace=False)

    async def turn(self, index: int, turn: Turn) -> Graded:
        self.history.append({"role": "user", "content": turn.text})
        try:
            response, attempts = await self.runtime.provider.invoke_counted(
                self.turn_request(index, turn.text))
        except asyncio.CancelledError:
            raise
        except Exception as err:  # noqa: BLE001 - the turn scores 0, the conversation goes on
            self.attempts += getattr(err, "attempts", 1)
            return Graded(f"turn-{index}", 0.0, "fail",
                          [{"text": f"Provider error: {error_message(err)}", "passed": False}])
        self.attempts += attempts
        self._add_usage(response)
        self.history.append({"role": "assistant", "content": response.text})
        if not turn.evaluators:
            return Graded(f"turn-{index}", 1.0, "pass", [])
        seen = self.conversation.window(self.history)
        ctx = self.context(f"{self.case.id}/turn-{index}", transcript(seen), response.text,
                           seen, turn.expected, response)
        results = await self.grade(turn.evaluators, ctx)
        score = turn_score(results, turn.evaluators, self.limit)
        return Graded(f"turn-{index}", score, verdict(score, self.limit),
                      [a for r in results for a in assertion_items(r)],
                      None if turn.implicit else results)

    async def whole(self) -> Graded:
        """The case's own evaluators on the whole transcript."""
        text = transcript(self.history)
        ctx = self.context(f"{self.case.id}/conversation", text, text, list(self.history), "",
                           None)
        results = await self.grade(self.case.evaluators, ctx)
        score = turn_score(results, self.case.evaluators, self.limit)
        return Graded("conversation", score, verdict(score, self.limit),
                      [a for r in results for a in assertion_items(r)], results)

    def context(self, eval_id: str, question: str, answer: str, seen: list[dict[str, Any]],
                expected: str, response: Response | None) -> EvalContext:
        case, runtime = self.case, self.runtime
        return EvalContext(
            eval_id=eval_id, question=question, candidate_answer=answer,
            expected_outcome=case.expected_outcome, reference_answer=expected,
            input_messages=seen,
            expected_messages=[{"role": "assistant", "content": expected}] if expected else [],
            output_messages=response.output_messages if response else None,
            trace=response.trace if response else None,
            usage=response.usage if response else None,
            latency_ms=response.latency_ms if response else None,
            base_dir=case.base_dir, target=runtime.name, target_provider=runtime.provider.kind,
            judge=runtime.judge, judge_name=runtime.judge.name if runtime.judge else None,
            trial=self.job.trial, case_metadata=case.metadata)

    async def grade(self, evaluators: list[Any], ctx: EvalContext) -> list[EvaluatorResult]:
        return list(await asyncio.gather(*(run_evaluator(e, ctx) for e in evaluators)))

    def _add_usage(self, response: Response) -> None:
        usage = response.usage
        if usage is None:
            return
        for key in ("input_tokens", "output_tokens", "cost_usd"):
            value = getattr(usage, key)
            if value is not None:
                setattr(self.usage, key, (getattr(self.usage, key) or 0) + value)

    def record(self, started: float) -> dict[str, Any]:
        score = aggregate([g.score for g in self.graded], self.conversation.aggregation)
        status = "ok" if score >= self.limit else "quality_failure"
        results = [g.result() for g in self.graded]
        answer = next((m["content"] for m in reversed(self.history)
                       if m["role"] == "assistant"), "")
        record = self.base_record(self.job, self.runtime, self.request)
        record.pop("conversation_id", None)  # 4.42.4 writes none for a conversation
        if isinstance(record.get("run_trace"), dict):  # the whole conversation, as AgentV
            record["run_trace"]["outputs"] = list(self.history)
        record.update({
            "score": score, "hits": [h for r in results for h in r.hits],
            "misses": [m for r in results for m in r.misses], "candidate_answer": answer,
            "reasoning": "", "evaluator_provider_request": None,
            "evaluator_results": [r.to_record() for r in results], "error": None,
            "attempt": max(self.attempts, 1),
            "latency_ms": round((time.perf_counter() - started) * 1000, 3), "wait_ms": 0.0,
            "usage": self.usage.to_dict() if self.attempts else None,
            "test_id": self.case.id, "suite": self.case.dataset,
            "category": self.case.category or "Uncategorized",
            "scores": [g.entry() for g in self.graded], "execution_status": status,
            "verdict": STATUS_VERDICTS[status], FORMAT_KEY: self.case.format})
        if self.case.metadata:
            record["metadata"] = self.case.metadata
        return record

