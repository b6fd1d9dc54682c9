"""A flow run read back through the Prefect API: the run, its task runs, artifacts and log
lines (waiting, when asked, until the named task runs are final: an in-process flow's task
runs reach the server as events, batched)."""
from __future__ import annotations

import asyncio


def read_flow_run(run_id: str, finished: frozenset[str] = frozenset()):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        ArtifactFilter,
        ArtifactFilterFlowRunId,
        FlowRunFilter,
        FlowRunFilterId,
        LogFilter,
        LogFilterFlowRunId,
    )

    async def read():
        async with get_client() as client:
            run = await client.read_flow_run(run_id)
            arts = await client.read_artifacts(artifact_filter=ArtifactFilter(
                flow_run_id=ArtifactFilterFlowRunId(any_=[run.id])))
            logs = await client.read_logs(log_filter=LogFilter(
                flow_run_id=LogFilterFlowRunId(any_=[run.id])))
            for _ in range(300):
                tasks = await client.read_task_runs(flow_run_filter=FlowRunFilter(
                    id=FlowRunFilterId(any_=[run.id])))
                if finished <= {t.name for t in tasks if t.state and t.state.is_final()}:
                    break
                await asyncio.sleep(0.1)
            return run, tasks, arts, logs
    return asyncio.run(read())
