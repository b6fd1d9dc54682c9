"""The table artifact each case batch (tasks/plan/batching.py) publishes, so every case is
findable in the UI."""
from __future__ import annotations

from typing import Any

from agentv.flows.prefect.artifact_spec import Artifact, table_artifact
from agentv.flows.prefect.naming import slug


def batch_table(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of a batch's table artifact: one per case."""
    return [{"eval_id": r["eval_id"], "target": r["target"], "trial": r.get("trial", 0),
             "score": r["score"], "attempt": r.get("attempt"),
             "latency_ms": r.get("latency_ms"), "error": r.get("error") or ""}
            for r in records]


def batch_artifact(label: str, records: list[dict[str, Any]]) -> Artifact:
    return table_artifact(batch_table(records), f"Cases of batch {label}",
                          slug(f"agentv-batch-{label}"))
