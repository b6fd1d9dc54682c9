"""What the flow adds to the records when it publishes a run: each eval file's quality
gates, and a note when the scores come from the offline heuristic judge."""
from __future__ import annotations

from flows.artifacts.publish import RunInfo
from flows.naming import suite_name
from providers.heuristic_judge import OFFLINE_LABEL
from tasks.plan.plan import Plan
from tasks.load.targets import repo_relative


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


def run_info(plan: Plan) -> RunInfo:
    gates = [(f"{suite_name(s.path)} (execution)", repo_relative(s.path), s.gates)
             for s in plan.suites if s.gates.active]
    judges = offline_judges(plan)
    notes = ([f"judge: {OFFLINE_LABEL} on target {', '.join(judges)}; its scores measure "
              "key-term overlap with the expected outcome and reference, not answer quality"]
             if judges else [])
    return RunInfo(suite_gates=gates, notes=notes)
