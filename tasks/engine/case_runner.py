"""One job: invoke the target (through the retry layer) → run evaluators → build the record.

No Prefect here: the flow's batch tasks call ``CaseRunner.run`` for each job under a shared
semaphore. A failure of the target becomes the case's error record; an evaluator's failure
stays inside that evaluator's result. An agent's workspace is handed over with its answer and
finished once the record is built (``tasks.engine.workspaces``: kept when the case failed).
"""
from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from agentv.evaluators.base import EvalContext, EvaluatorResult, run_evaluator, weighted_score
from agentv.providers.agents.output import trace_from_messages, trace_summary
from agentv.providers.base import ProviderError, Response
from agentv.providers.llm.retry import RetryingProvider
from agentv.tasks.engine.conversation import ConversationRun
from agentv.tasks.engine.dumps import dump_name, write_dump
from agentv.tasks.engine.record_parts import (
    error_message,
    joined_reasoning,
    record_usage,
    with_dumps,
)
from agentv.tasks.engine.record_rules import rules_for
from agentv.tasks.engine.workspaces import abandon_workspace, finish_workspace
from agentv.tasks.plan.expand import (
    Job,
    build_request,
    prompt_dump,
    provider_request_record,
    reference_answer,
    user_segments,
)

log = logging.getLogger("agentv.run")


@dataclass
class TargetRuntime:
    """A selected target ready to call: the provider wrapped in its retry policy."""

    name: str
    provider: RetryingProvider
    is_agent: bool = False
    judge: RetryingProvider | None = None
    batch: Any = None  # the provider itself when provider_batching is on and supported


@dataclass
class RunOptions:
    include_trace: bool = False
    dump_prompts: str | None = None
    dump_traces: str | None = None
    thresholds: dict[str, float] = field(default_factory=dict)  # eval file -> pass mark
    keep_workspaces: bool = False  # --keep-workspaces: passing cases' workspaces too
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Invoked:
    """A job after its target call: the evaluators' response, or the case's error record."""

    job: Job
    request: Any
    started: float
    attempts: int
    dumps: dict[str, Any]
    response: Response | None = None
    record: dict[str, Any] | None = None


def _innermost(provider: Any) -> Any:
    """The provider under its retry/cache wrappers."""
    while hasattr(provider, "provider"):
        provider = provider.provider
    return provider


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class CaseRunner:
    def __init__(self, targets: dict[str, TargetRuntime], options: RunOptions):
        self.targets = targets
        self.options = options
        self.prefetched: dict[str, Any] = {}  # job key -> batch answer (Response or error)

    async def run(self, job: Job) -> dict[str, Any]:
        return await self.evaluate(await self.invoke(job))

    async def invoke(self, job: Job) -> Invoked:
        """The job's target call (prompt dump, retries, trace dump); a failure is kept as the
        case's error record."""
        if job.case.conversation is not None:  # turn by turn (tasks.engine.conversation)
            talk = ConversationRun(job, self.targets[job.target], self._base_record)
            record = await talk.run()
            return Invoked(job, talk.request, talk.started, max(talk.attempts, 1), {},
                           record=record)
        runtime = self.targets[job.target]
        request = build_request(job.case, is_agent=runtime.is_agent, trial=job.trial)
        request.hand_over_workspace = True  # finished in evaluate(), after scoring
        dumps: dict[str, Any] = {}
        if self.options.dump_prompts:
            dump = prompt_dump(request)
            sent = _innermost(runtime.provider).agent_prompt(request)
            if sent is not None:  # codex/vscode: exactly what the agent program receives
                dump["agent_prompt"] = sent
            dumps["prompt"] = write_dump(self.options.dump_prompts, dump_name(
                job.case.file, job.case.id, job.target, job.trial), dump)
        started = time.perf_counter()
        try:
            response, attempts = await self._invoke(job, runtime, request)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # noqa: BLE001 - tier 2: recorded, the run goes on
            attempts = getattr(err, "attempts", 1)
            self._dump_trace(job, attempts, None, dumps)
            record = with_dumps(self._error_record(job, runtime, request, err, attempts,
                                                    started), dumps)
            return Invoked(job, request, started, attempts, dumps, record=record)
        if response.trace is None:  # AgentV: tool calls in output_messages are the trace
            response.trace = trace_from_messages(response.output_messages)
        self._dump_trace(job, attempts, response, dumps)
        return Invoked(job, request, started, attempts, dumps, response)

    async def evaluate(self, done: Invoked) -> dict[str, Any]:
        """The evaluators on the target's answer, and the case's record."""
        if done.record is not None or done.response is None:
            return done.record or {}
        job, response, runtime = done.job, done.response, self.targets[done.job.target]
        try:
            summary = trace_summary(response.trace, response.usage, response.latency_ms,
                                    response.output_messages)
            results = await self._evaluate(job, runtime, done.request, response,
                                           done.attempts, summary)
            record = self._record(job, runtime, done.request, response, results,
                                  done.attempts, done.started, summary)
        except BaseException:
            abandon_workspace(response)
            raise
        finish_workspace(record, response, self.options.keep_workspaces)
        return with_dumps(record, done.dumps)

    def batching(self, jobs: list[Job]) -> bool:
        return bool(jobs) and self.targets[jobs[0].target].batch is not None

    async def prefetch(self, jobs: list[Job]) -> None:
        """provider_batching: one provider call answers all ``jobs`` (of one target); if that
        call fails, the cases are dispatched one by one as usual."""
        jobs = [j for j in jobs if j.case.conversation is None]  # those call turn by turn
        if not self.batching(jobs):
            return
        runtime = self.targets[jobs[0].target]
        requests = [build_request(j.case, is_agent=runtime.is_agent, trial=j.trial) for j in jobs]
        try:
            answers = await runtime.batch.invoke_batch(requests)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # noqa: BLE001 - the fallback is per-case dispatch
            log.info("target %s: batch of %d case(s) failed (%s: %s); falling back to per-case "
                     "dispatch", runtime.name, len(jobs), type(err).__name__, err)
            return
        log.info("target %s: %d case(s) answered in one batch", runtime.name, len(jobs))
        self.prefetched.update((j.key, a) for j, a in zip(jobs, answers))

    async def _invoke(self, job: Job, runtime: TargetRuntime, request) -> tuple[Response, int]:
        answer = self.prefetched.pop(job.key, None)
        if answer is None:
            return await runtime.provider.invoke_counted(request)
        if isinstance(answer, BaseException):
            answer.attempts = 1  # type: ignore[attr-defined]
            raise answer
        return answer, 1

    async def _evaluate(self, job: Job, runtime: TargetRuntime, request, response: Response,
                        attempts: int, summary: dict[str, Any] | None
                        ) -> list[EvaluatorResult]:
        case = job.case
        ctx = EvalContext(
            eval_id=case.id, question=request.question, candidate_answer=response.text,
            expected_outcome=case.expected_outcome, reference_answer=reference_answer(case),
            input_messages=[m.to_dict() for m in case.input_messages],
            expected_messages=[m.to_dict() for m in case.expected_messages],
            output_messages=response.output_messages, guideline_paths=request.guideline_paths,
            input_files=request.input_files, system_message=request.system_prompt or "",
            trace=response.trace, usage=response.usage, latency_ms=response.latency_ms,
            rubrics=case.rubrics, base_dir=case.base_dir, target=runtime.name,
            target_provider=runtime.provider.kind, judge=runtime.judge,
            judge_name=runtime.judge.name if runtime.judge else None,
            attempt=attempts, trial=job.trial, trace_summary=summary,
            file_changes=response.file_changes, workspace_path=response.workspace_path,
            user_segments=user_segments(case), case_metadata=case.metadata,
        )
        return list(await asyncio.gather(*(run_evaluator(e, ctx) for e in case.evaluators)))

    def _base_record(self, job: Job, runtime: TargetRuntime, request,
                     error: str | None = None) -> dict[str, Any]:
        case = job.case
        record: dict[str, Any] = {"timestamp": now_iso(), "eval_id": case.id,
                                  "dataset": case.dataset}
        if case.conversation_id:
            record["conversation_id"] = case.conversation_id
        record.update(rules_for(case).base(case))
        record.update(rules_for(case).trace_source(  # a failed target reports no provider
            case, runtime.provider.kind if error is None else None))
        key, value = provider_request_record(request, runtime.provider.kind, error)
        record.update({"target": runtime.name, "trial": job.trial, "case_key": job.key,
                       key: value})
        return record

    def _record(self, job, runtime, request, response: Response, results, attempts, started,
                summary: dict[str, Any] | None):
        record = self._base_record(job, runtime, request)
        judge_req = next((r.evaluator_provider_request for r in results
                          if r.evaluator_provider_request), None)
        record.update({
            "score": round(weighted_score(results), 6),
            "hits": [h for r in results for h in r.hits],
            "misses": [m for r in results for m in r.misses],
            "candidate_answer": response.text,
            "reasoning": joined_reasoning(results),
            "evaluator_provider_request": judge_req,
            "evaluator_results": [r.to_record() for r in results],
            "error": None, "attempt": attempts,
            "latency_ms": round(response.latency_ms if response.latency_ms is not None
                                and attempts == 1
                                else (time.perf_counter() - started) * 1000, 3),
            "wait_ms": response.wait_ms,
            "usage": record_usage(response),
        })
        if response.cached:
            record["cached"] = True
        if response.file_changes is not None:  # AgentV's file_changes / workspace_path
            record["file_changes"] = response.file_changes
        if response.workspace_path:
            record["workspace_path"] = response.workspace_path
        duration = None if runtime.provider.kind == "mock" else record["latency_ms"]
        rules_for(job.case).scored(record, job.case, results, response.usage, duration,
                                   response.output_messages,
                                   self.options.thresholds.get(job.case.file))
        if summary is not None:
            record["trace_summary"] = summary
        if self.options.include_trace:
            record["trace"] = [e.to_dict() for e in response.trace] if response.trace else None
            record["output_messages"] = response.output_messages
        return record

    def _error_record(self, job, runtime, request, err: BaseException, attempts, started):
        message = error_message(err)
        record = self._base_record(job, runtime, request, message)
        details = getattr(err, "details", None) or {}
        record.update({"score": 0.0, "hits": [], "misses": [f"Provider error: {message}"],
                       "candidate_answer": "", "reasoning": "", "evaluator_provider_request":
                       None, "evaluator_results": [], "error": message, "attempt": attempts,
                       "latency_ms": round((time.perf_counter() - started) * 1000, 3),
                       "wait_ms": getattr(err, "wait_ms", 0.0),
                       "usage": None})
        if details:
            record["error_details"] = details
        if details.get("workspace_path"):  # kept for a look, as AgentV keeps it
            record["workspace_path"] = details["workspace_path"]
        rules_for(job.case).failed(record, job.case, message)
        log.info("case %s failed after %d attempt(s): %s", job.case.id, attempts, message)
        return record

    def not_run_record(self, job: Job, reason: str) -> dict[str, Any]:
        """A case ``--budget-usd`` left: marked ``budget_exceeded``; ``--resume`` runs it."""
        runtime = self.targets[job.target]
        request = build_request(job.case, is_agent=runtime.is_agent, trial=job.trial)
        record = self._error_record(job, runtime, request, ProviderError(reason), 0, 0.0)
        return record | {"misses": [reason], "latency_ms": 0.0, "budget_exceeded": True,
                         "failure_reason_code": "budget_exceeded"}

    def _dump_trace(self, job: Job, attempts: int, response: Response | None,
                    dumps: dict[str, Any]) -> None:
        if not self.options.dump_traces:
            return
        final, usage = (response.trace, response.usage) if response else (None, None)
        paths = dumps.setdefault("traces", [])
        for attempt in range(1, attempts + 1):  # earlier attempts failed: no trace
            trace = final if attempt == attempts else None
            paths.append(write_dump(
                self.options.dump_traces,
                dump_name(job.case.file, job.case.id, job.target, job.trial, attempt),
                {"eval_id": job.case.id, "attempt": attempt, "target": job.target,
                 "trial": job.trial, "file": job.case.file,
                 "trace": [e.to_dict() for e in trace] if trace is not None else None,
                 "trace_summary": trace_summary(trace, usage, response.latency_ms
                                                if response else None)}))
