"""``--prefect-tasks case``: each case runs as two Prefect task runs, ``invoke-provider: <id>``
and ``run-evaluators: <id>`` (`` [trial N]`` when a case runs several trials), under the
run's in-process limits — so a small suite shows every case, its attempts, duration and
logs in the flow run's graph. The records are the ones ``batch`` mode writes; each task run
costs Prefect's per-task overhead (docs/cli.md: when to use it). Both task runs are tagged
``target:<name>``, so Prefect's tag-based task concurrency limits apply to them."""
from __future__ import annotations

from typing import Any

from prefect import tags, task
from prefect.cache_policies import NO_CACHE
from prefect.states import Failed

from agentv.evaluators.base import verdict_for
from agentv.flows.prefect.recording import run_logger
from agentv.flows.prefect.scrubbed import PERSIST, scrub_errors
from agentv.flows.run import Run, as_is
from agentv.tasks.engine.case_runner import Invoked
from agentv.tasks.load.redact import redact
from agentv.tasks.plan.expand import Job
from agentv.tasks.results.failures import reason


def case_label(job: Job, trials: bool) -> str:
    return f"{job.case.id} [trial {job.trial + 1}]" if trials else job.case.id


@task(name="invoke-provider", cache_policy=NO_CACHE, persist_result=PERSIST,
      task_run_name="invoke-provider: {label}")
@scrub_errors
async def invoke_provider(label: str, run: Run, job: Job) -> Invoked:
    """Call the case's target (agentv's retry layer inside: attempts are logged)."""
    done = await run.runner.invoke(job)
    logger = run_logger()
    if done.record is not None and job.case.conversation is not None:
        logger.info("target %s held a conversation of %d turn(s)", job.target,
                    len(job.case.conversation.turns))
    elif done.record is not None:
        logger.warning("target %s failed after %d attempt(s): %s", job.target, done.attempts,
                       done.record.get("error"))
    else:
        latency = done.response.latency_ms if done.response else None
        logger.info("target %s answered after %d attempt(s)%s", job.target, done.attempts,
                    f" in {latency:.0f} ms" if latency is not None else "")
    return done


@task(name="run-evaluators", cache_policy=NO_CACHE, persist_result=PERSIST,
      task_run_name="run-evaluators: {label}")
@scrub_errors
async def run_evaluators(label: str, run: Run, done: Invoked,
                         out: list[dict[str, Any]]) -> Any:
    """Score the answer with the case's evaluators; the case's record (also put in ``out``:
    a failed case's state carries no data, so Prefect never logs the whole record)."""
    record = await run.runner.evaluate(done)
    out.append(record)
    if not record.get("error"):
        run_logger().info("score %.3f (%d hit(s), %d miss(es))", record.get("score", 0.0),
                              len(record.get("hits") or []), len(record.get("misses") or []))
    return case_state(record)


def case_state(record: dict[str, Any]) -> Any:
    """The record as its task run's state: Completed when the case passed, else Failed with
    the reason (in the UI a failed case is red, not a green Completed)."""
    score: Any = record.get("score")
    scored = isinstance(score, (int, float))
    verdict = "error" if record.get("error") else (
        record.get("verdict") or (verdict_for(score) if scored else "error"))
    if verdict == "pass":
        return record
    results = record.get("evaluator_results")
    why = redact(reason(record, results if isinstance(results, list) else None))
    score_text = f" {score:.3f}" if scored else ""
    return Failed(message=f"case failed ({verdict}{score_text}): {why}")


class CaseTasks:
    """The job runner's ``execute`` in case mode."""

    def __init__(self, run: Run, trials: bool):
        self.run, self.trials = run, trials

    async def __call__(self, job: Job) -> dict[str, Any]:
        label = case_label(job, self.trials)
        call = self.run.recording.call  # the API lost: the same, outside Prefect
        with tags(target_tag(job.target)):
            done = await call(invoke_provider, label, self.run, as_is(job))
            out: list[dict[str, Any]] = []  # the record, whether the task run passed or failed
            state = await call(run_evaluators, label, self.run, as_is(done), as_is(out),
                               return_state=True)
        if out:
            return out[0]
        return await state.aresult()  # the evaluators crashed: raised as before


def target_tag(target: str) -> str:
    """The tag of a case's task runs: a tag concurrency limit on it bounds the target."""
    return f"target:{target}"
