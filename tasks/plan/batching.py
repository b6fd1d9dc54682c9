"""Case batches: jobs grouped by eval file × target, in order, and chunked (DESIGN.md §8:
coarse Prefect tasks). Pure: the launcher orders its head start by them before Prefect is
imported, the flow runs one ``run-cases`` task per batch."""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from agentv.tasks.plan.expand import Job

Batch = tuple[str, Sequence[Job]]  # (label shown in the UI, its jobs)


def batches_of(jobs: Sequence[Job], size: int, whole: frozenset[str] = frozenset()
               ) -> list[Batch]:
    """Group jobs by (file, target) in order, then chunk; label each batch for the UI.
    Groups of ``whole`` targets (provider_batching) stay one batch."""
    groups: dict[tuple[str, str], list[Job]] = {}
    for job in jobs:
        groups.setdefault((job.file, job.target), []).append(job)
    out: list[Batch] = []
    for (file, target), group in groups.items():
        name = file.rsplit("/", 1)[-1]
        step = len(group) if target in whole else size
        chunks = math.ceil(len(group) / step)
        for i in range(chunks):
            out.append((f"{name} × {target} [{i + 1}/{chunks}]", group[i * step:(i + 1) * step]))
    return out


def batch_size(n_jobs: int) -> int:
    """About 8 batches a run, 10 to 250 cases each: a batch task and its table artifact cost
    the Prefect server ~20 ms of CPU, 40 batches of 50 were a third of its load at 2,000
    cases (every case stays listed in its batch's table)."""
    return max(10, min(250, math.ceil(n_jobs / 8)))


def run_batches(jobs: Sequence[Job], runtimes: Mapping[str, Any]) -> list[Batch]:
    """The batches a run's pending ``jobs`` are split into (a provider_batching target's
    group stays whole: one call answers it)."""
    return batches_of(jobs, batch_size(len(jobs)), batching_targets(runtimes))


def batching_targets(runtimes: Mapping[str, Any]) -> frozenset[str]:
    """The targets whose runtime answers a whole batch in one call (provider_batching)."""
    return frozenset(name for name, rt in runtimes.items() if rt.batch)
