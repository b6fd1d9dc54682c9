"""A suite split into shards, run by the workers of one Prefect work pool.

``agentv-shard`` runs shard I/N of a suite (``agentv eval --shard I/N``) and writes its
own results file. ``run_shards`` (used by the nightly flow when ``shards > 1``) creates N
runs of that deployment with ``run_deployment``; Prefect's work pool hands them to
whichever workers poll it, on any machine, and the parent waits for all of them and
merges their results. The queue and the scheduling are Prefect's. The output directory
must be on storage every worker and the parent can read (a shared mount or one machine).
"""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from prefect import flow

from agentv.deployments.runs import eval_options, run_suites
from agentv.flows.prefect.scrubbed import PERSIST, scrub_errors
from agentv.tasks.plan.scale import parse_shard

SHARD_DEPLOYMENT = "agentv-shard/agentv-shard"
POLL_SECONDS = 2.0


@flow(name="agentv-shard", log_prints=False, persist_result=PERSIST)
@scrub_errors
async def shard_flow(suites: list[str], shard: str, out: str, target: str | None = None,
                     targets: str | None = None, trials: int | None = None,
                     workers: int | None = None, dry_run: bool = False,
                     prefect_tasks: str = "batch") -> dict[str, Any]:
    """Run shard I/N of the suites; returns its results path and case count."""
    parse_shard(shard)
    opts = eval_options(suites, out, shard=shard, target=target, targets=targets, trials=trials,
                        workers=workers, dry_run=dry_run, prefect_tasks=prefect_tasks)
    result = await run_suites(opts)
    return {"results": result["results"], "cases": result["summary"]["total"]}


def shard_parameters(base: dict[str, Any], shards: int, out_dir: Path) -> list[dict[str, Any]]:
    return [{**base, "shard": f"{i}/{shards}", "out": str(out_dir / f"shard-{i}-of-{shards}.jsonl")}
            for i in range(1, shards + 1)]


async def run_shards(shards: int, out_dir: Path, parameters: dict[str, Any],
                     deployment: str = SHARD_DEPLOYMENT) -> list[str]:
    """Run N shard flow runs through the work pool; return their results files in order."""
    from prefect.deployments.flow_runs import arun_deployment
    runs = await asyncio.gather(*(
        arun_deployment(name=deployment, parameters=p, poll_interval=POLL_SECONDS,
                        flow_run_name=f"shard {p['shard']}")
        for p in shard_parameters(parameters, shards, out_dir)))
    failed = [f"{r.name}: {r.state.name if r.state else 'unknown'}" for r in runs
              if not (r.state and r.state.is_completed())]
    if failed:
        raise RuntimeError("shard run(s) did not complete: " + ", ".join(failed))
    return [p["out"] for p in shard_parameters(parameters, shards, out_dir)]
