"""A run's ``Final`` (flows/prefect/stage.py) as the Prefect state its flow returns, inside
the flow run; its tags added to the flow run first."""
from __future__ import annotations

from typing import Any

from agentv.flows.prefect.stage import Final


async def prefect_state(final: Final) -> Any:
    from prefect.states import Completed, Failed
    if final.tags:
        await _tag_run(final.tags)
    if final.failed:
        return Failed(message=final.message)
    return Completed(name=final.name or "Completed", message=final.message,
                     data=final.outcome)


async def _tag_run(tags: tuple[str, ...]) -> None:
    from prefect import get_run_logger
    from prefect.client.orchestration import get_client
    from prefect.runtime import flow_run
    try:
        async with get_client() as client:
            await client.update_flow_run(flow_run.id, tags=sorted({*flow_run.tags, *tags}))
    except Exception as err:  # noqa: BLE001 - a missing tag is cosmetic; the state says it
        get_run_logger().warning("could not tag the flow run %s: %s", ", ".join(tags), err)
