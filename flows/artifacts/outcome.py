"""What the flow adds to the records when it publishes a run: each eval file's quality
gates, a note when the scores come from the offline heuristic judge, what the sandbox
allowed beyond its defaults (``flows.artifacts.sandbox_notes``), and how the run met
AgentV's ``--threshold`` and ``--budget-usd`` (a miss fails the run, as in AgentV)."""
from __future__ import annotations

from typing import Any

from agentv.flows.artifacts.run_summary import RunInfo
from agentv.flows.artifacts.sandbox_notes import sandbox_notes
from agentv.flows.prefect.naming import suite_name
from agentv.providers.heuristic_judge import OFFLINE_LABEL
from agentv.tasks.load.targets import repo_relative
from agentv.tasks.plan.consent import user_scripts
from agentv.tasks.plan.plan import Plan


def offline_judges(plan: Plan) -> list[str]:
    """Judge targets that are the mock without a canned ``judge_response``."""
    names = set()
    for target in {job.target for job in plan.jobs}:
        judge = plan.judges.get(target) or target
        spec = plan.targets.get(judge)
        if spec is not None and spec.provider == "mock" \
                and spec.setting("judge_response") is None:
            names.add(judge)
    return sorted(names)


def run_info(plan: Plan, ledger: Any = None, budget: Any = None) -> RunInfo:
    """``ledger``: the run's ``RunLedger`` (its threshold count); ``budget``: its
    ``--budget-usd`` ``Budget`` (None: no budget)."""
    gates = [(f"{suite_name(s.path)} (execution)", repo_relative(s.path), s.gates)
             for s in plan.suites if s.gates.active]
    judges = offline_judges(plan)
    notes = ([f"judge: {OFFLINE_LABEL} on target {', '.join(judges)}; its scores measure "
              "key-term overlap with the expected outcome and reference, not answer quality"]
             if judges else [])
    info = RunInfo(suite_gates=gates, notes=notes + sandbox_notes(plan) + _dry_run(plan))
    if plan.thresholds and ledger is not None:
        _threshold(info, plan, ledger.threshold)
    if budget is not None:
        _budget(info, budget, plan.options.continued or plan.options.out)
    return info


def _dry_run(plan: Plan) -> list[str]:
    """A dry run (targets and judges the mock) still runs the user's own scripts: say which."""
    if not plan.options.dry_run:
        return []
    scripts = user_scripts(plan.suites)
    return [f"dry run: the mock answered and judged; these scripts of yours ran (in the "
            f"sandbox): {'; '.join(scripts)}"] if scripts else []


def _threshold(info: RunInfo, plan: Plan, count: Any) -> None:
    """AgentV's per-test threshold: how many cases reached it; any below fails the run."""
    values = sorted(set(plan.thresholds.values()))
    mark = f"{values[0]:.2f}" if len(values) == 1 else "their eval file's threshold"
    info.notes.append(f"threshold: {count.passed}/{count.scored} case(s) scored >= {mark}")
    if count.failed:
        info.failures.append(f"{count.failed} of {count.scored} case(s) scored below "
                             f"threshold {mark}")


def _budget(info: RunInfo, budget: Any, results: str | None) -> None:
    spent = f"${budget.spent:.4f} of ${budget.cap:.4f}"
    left = (f"; {budget.not_run} case(s) not run (continue with --resume {results})"
            if budget.not_run else "")
    info.notes.append(f"budget: {spent} spent{left}")
    if budget.exceeded:
        info.failures.append(f"run budget exceeded: {spent} spent{left}")
