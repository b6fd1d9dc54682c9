"""Shared by the deployments: check parameters, run suites inside a flow, merge shards.

Deployed flows run the ``agentv-eval`` flow as a subflow (so every case batch, table and
summary artifact shows under the deployment's run in the UI).
"""
from __future__ import annotations

from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agentv.providers.errors import ConfigError
from agentv.tasks.load.discover import expand_eval_paths
from agentv.tasks.load.files import load_suite
from agentv.tasks.plan.plan import EvalOptions


def check_parameters(suites: list[str], baseline: str | None = None,
                     targets: str | None = None, gates: dict[str, Any] | None = None) -> None:
    """Every suite exists and loads; the baseline and targets files exist; the quality gates
    (fail_under, min_pass_rate, fail_on_error) and ``prefect_tasks`` are valid. ConfigError
    if not."""
    from agentv.tasks.load.gates import GATE_KEYS, parse_gates
    from agentv.tasks.plan.scale import check_prefect_tasks
    check_prefect_tasks((gates or {}).get("prefect_tasks"), "default")
    parse_gates({k: v for k, v in (gates or {}).items() if k in GATE_KEYS and v is not None})
    if not suites:
        raise ConfigError("needs at least one eval file", None, "suites")
    from agentv.tasks.load.boundary import allowed_roots
    allowed = allowed_roots()  # the project config's allowed_paths (as the run's plan)
    for path in expand_eval_paths(list(suites)):
        load_suite(path, warn=lambda _: None, allowed=allowed)
    for name, value in (("baseline", baseline), ("targets", targets)):
        if value and not Path(value).exists():
            raise ConfigError(f"{name} file not found", value, name)


def run_stamp() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H-%M-%S")


def eval_options(suites: list[str], out: str, **settings: Any) -> EvalOptions:
    """EvalOptions for a deployed run; ``settings`` are EvalOptions fields (None = default)."""
    return EvalOptions(paths=list(suites), out=out,
                       **{k: v for k, v in settings.items() if v is not None})


async def run_suites(opts: EvalOptions) -> dict[str, Any]:
    """Plan and preflight (ConfigError before anything runs), then the eval subflow. Its
    result holds ``gate_failures`` (the subflow run ends Failed when a gate fails)."""
    from prefect import tags

    from agentv.flows.opening import open_run
    from agentv.flows.pipeline import eval_flow
    from agentv.flows.prefect.naming import plan_labels, run_name, run_tags
    from agentv.flows.run import as_is
    run = open_run(opts)
    options = {k: v for k, v in asdict(opts).items() if v not in (None, {}, [], False)}
    suites, targets, datasets = plan_labels(run.plan)
    named = eval_flow.with_options(flow_run_name=run_name(suites, targets))
    async with run:
        run.begin()
        with tags(*run_tags(suites, targets, datasets)):
            final = await named(options={**options, "paths": opts.paths}, run=as_is(run),
                                return_state=True)
    if run.outcome is None:
        raise RuntimeError(f"the agentv-eval subflow ended {final.name}: {final.message}")
    return run.outcome


def merge_results(parts: list[str], out: str | Path) -> Path:
    """Concatenate shard results (JSONL) into one results file, streaming line by line."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as sink:
        for part in parts:
            with open(part, encoding="utf-8") as source:
                for line in source:
                    if line.strip():
                        sink.write(line if line.endswith("\n") else line + "\n")
    return out
