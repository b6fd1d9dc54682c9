"""Case batches: jobs grouped by eval file × target and chunked (DESIGN.md §8: coarse
Prefect tasks), and the table artifact each batch publishes so every case is findable in
the UI."""
from __future__ import annotations

import math
from typing import Any

from prefect.artifacts import acreate_table_artifact

from flows.naming import slug
from tasks.expand import Job


def batches_of(jobs: list[Job], size: int,
               whole: frozenset[str] = frozenset()) -> list[tuple[str, list[Job]]]:
    """Group jobs by (file, target) in order, then chunk; label each batch for the UI.
    Groups of ``whole`` targets (provider_batching) stay one batch."""
    groups: dict[tuple[str, str], list[Job]] = {}
    for job in jobs:
        groups.setdefault((job.case.file, job.target), []).append(job)
    out = []
    for (file, target), group in groups.items():
        name = file.rsplit("/", 1)[-1]
        step = len(group) if target in whole else size
        chunks = math.ceil(len(group) / step)
        for i in range(chunks):
            out.append((f"{name} × {target} [{i + 1}/{chunks}]", group[i * step:(i + 1) * step]))
    return out


def batch_size(n_jobs: int) -> int:
    return max(10, min(50, math.ceil(n_jobs / 20)))


def batch_table(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of a batch's table artifact: one per case."""
    return [{"eval_id": r["eval_id"], "target": r["target"], "trial": r.get("trial", 0),
             "score": r["score"], "attempt": r.get("attempt"),
             "latency_ms": r.get("latency_ms"), "error": r.get("error") or ""}
            for r in records]


async def publish_batch_table(label: str, records: list[dict[str, Any]]) -> None:
    await acreate_table_artifact(key=slug(f"agentv-batch-{label}"), table=batch_table(records),
                                 description=f"Cases of batch {label}")
