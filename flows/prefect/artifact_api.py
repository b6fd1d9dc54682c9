"""Creating an artifact (flows/prefect/artifact_spec.py) in Prefect: on the flow and task run of
the current context, or on the ones named (the recorder process, mirroring a run)."""
from __future__ import annotations

from typing import Any
from uuid import UUID

from prefect.artifacts import Artifact as PrefectArtifact

from agentv.flows.prefect.artifact_spec import Artifact


class _Formatted(PrefectArtifact):
    """An artifact whose stored text is given as it is."""

    text: str = ""

    async def aformat(self) -> str:
        return self.text

    def format(self) -> str:
        return self.text


async def create_artifact(spec: Artifact, flow_run_id: UUID | str | None = None,
                          task_run_id: UUID | str | None = None, client: Any = None) -> Any:
    """The created artifact's id (through ``client``, else a client of its own)."""
    made = await _Formatted(type=spec.type, key=spec.key, description=spec.description,
                            text=spec.data, flow_run_id=_uuid(flow_run_id),
                            task_run_id=_uuid(task_run_id)).acreate(client)
    return made.id


def _uuid(value: UUID | str | None) -> UUID | None:
    return UUID(str(value)) if value is not None else None
