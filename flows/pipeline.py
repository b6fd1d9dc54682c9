"""The eval pipeline as a Prefect flow, ``agentv-eval``: the run's stages
(flows/stages.py: load-and-expand → preflight-targets → run-cases batches → summarize) run
as task runs of its flow run, inside one ``Run`` (flows/run.py) — the one its launcher
opened (``--task-runner dask``, ``--prefect-tasks case``), or, started with options alone
(from the Prefect UI or a deployment), one it opens and closes itself."""
from __future__ import annotations

from typing import Any

from agentv.flows.prefect.jsonflow import json_flow
from agentv.flows.prefect.scrubbed import PERSIST, scrub_errors
from agentv.flows.run import Run
from agentv.flows.stages import run_stages

__all__ = ["eval_flow"]


@json_flow(name="agentv-eval", log_prints=False, validate_parameters=False,
           persist_result=PERSIST)
@scrub_errors  # the flow run's state message never carries a secret
async def eval_flow(options: dict[str, Any], run: Run | None = None) -> Any:
    """Run AgentV eval suites. ``options`` are EvalOptions fields (paths, target, workers…);
    ``run`` the ``Run`` its launcher opened (never serialized). Ends Failed (with the
    reasons) when a quality gate fails."""
    if run is not None:
        return await run.recording.end(await run_stages(run))
    from agentv.flows.opening import open_run
    from agentv.tasks.plan.plan import EvalOptions
    async with open_run(EvalOptions(**options)) as opened:
        opened.begin()
        return await opened.recording.end(await run_stages(opened))
