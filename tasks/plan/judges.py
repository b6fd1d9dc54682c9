"""Every LLM evaluator has a judge before the first case: ``llm_judge``, ``rubric``,
case-level ``rubrics``, 4.x ``criteria`` / ``llm-grader`` and LLM aggregators ask the case's
judge (a v2 file's implicit default ``llm_judge`` is left to the run, as AgentV's examples
rely on it) — the target's ``judge_target``, else the target itself. An agent target (a coding-agent
CLI) cannot judge, so one without ``judge_target`` whose cases use an LLM evaluator is a
configuration error in ``validate``, ``--dry-run`` and the run alike, saying how to fix it."""
from __future__ import annotations

from typing import Any, Iterable

from agentv.providers.errors import ConfigError


def _is_agent(provider: str) -> bool:
    from agentv.providers.registry import facts
    try:
        return facts(provider).agent_prompt
    except ConfigError:  # an unknown provider: reported on its own
        return False


def _judged(case: Any) -> bool:
    if case.format == "agentv-4":  # 4.x: grader_target not yet read
        return False
    from agentv.tasks.load.eval_case import asks_judge
    return asks_judge(case.evaluators)


def agent_judges(targets: Iterable[str], resolver: Any) -> list[ConfigError]:
    """A ``judge_target`` naming an agent (a coding-agent CLI): it cannot judge, whether or
    not this run's cases ask it to (the next case that does would score nothing)."""
    errors = []
    for key in dict.fromkeys(targets):
        judge = resolver.judge_of.get(key)
        found = resolver.provider_of(judge) if judge is not None else None
        if found is None or not _is_agent(found[0]):
            continue
        where = resolver.provider_of(key)
        errors.append(ConfigError(
            f"target '{judge}' ({found[0]}) is an agent and cannot judge; name an LLM target "
            f"(openai, anthropic, litellm, ...)", where[1] if where else found[1],
            "judge_target"))
    return errors


def judge_errors(jobs: Iterable[Any], resolver: Any) -> list[ConfigError]:
    """One error per agent target without a judge whose cases ask one, and per
    ``judge_target`` naming an agent."""
    jobs = list(jobs)
    users: dict[str, list[Any]] = {}
    for job in jobs:
        if resolver.judge_of.get(job.target) is None:
            users.setdefault(job.target, []).append(job.case)
    errors = []
    for key, cases in users.items():
        found = resolver.provider_of(key)
        if found is None or not _is_agent(found[0]):
            continue
        judged = [c for c in {(c.file, c.line, c.id): c for c in cases}.values() if _judged(c)]
        if not judged:
            continue
        first = judged[0]
        errors.append(ConfigError(
            f"target '{key}' ({found[0]}) is an agent and cannot judge, but {len(judged)} "
            f"case(s) use an LLM evaluator (llm_judge, rubric(s), criteria, llm-grader), "
            f"first '{first.id}' at {first.file}:{first.line}; add "
            f"'judge_target: <an LLM target>' to target '{key}', or score those cases without "
            "a judge", found[1], "judge_target"))
    return [*errors, *agent_judges((job.target for job in jobs), resolver)]
