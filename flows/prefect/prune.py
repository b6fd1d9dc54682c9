"""Keep the Prefect database bounded (each case costs it ~1.2–1.8 KB): ``agentv server prune
--older-than 30d`` deletes, through Prefect's API client, the flow runs that started before
the cut-off with their artifacts; the server deletes their task runs with them (a cascade).
A run whose server died mid-run never ended: it goes by its start time too. On agentv's own
server the database file then shrinks (``db_compact``): events and logs older than the
cut-off go, ``VACUUM`` gives the free pages back to the disk and the write-ahead log is
emptied. A server the user runs (``PREFECT_API_URL``) only gets the API's deletes.

agentv's own server also vacuums itself: ``retention_env`` turns on Prefect's database
vacuum for flow runs (ended before the retention period) and their orphaned logs and
artifacts, ``AGENTV_SERVER_RETENTION_DAYS`` days (default 30; 0 keeps everything). A
server the user runs (``PREFECT_API_URL``) is theirs to configure.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from agentv.providers.errors import ConfigError

RETENTION_ENV = "AGENTV_SERVER_RETENTION_DAYS"
DEFAULT_RETENTION_DAYS = 30
PAGE = 200
UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_age(text: str, field: str = "--older-than") -> timedelta:
    """``30d``, ``12h``, ``90m``, ``2w``, ``45s`` (a number alone: days)."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*", text or "")
    if match is None:
        raise ConfigError(f"'{text}' is not an age (examples: 30d, 12h, 90m, 2w)", None, field)
    return timedelta(**{UNITS[match.group(2) or "d"]: float(match.group(1))})


def retention_days() -> float:
    """The retention of agentv's own server, in days (0: off)."""
    raw = os.environ.get(RETENTION_ENV, "").strip()
    if not raw:
        return DEFAULT_RETENTION_DAYS
    try:
        days = float(raw)
    except ValueError:
        raise ConfigError(f"'{raw}' is not a number of days (0 keeps every run)", None,
                          RETENTION_ENV) from None
    if days < 0:
        raise ConfigError(f"'{raw}': days cannot be negative", None, RETENTION_ENV)
    return days


def retention_env() -> dict[str, str]:
    """The environment agentv starts its own server with: Prefect's database vacuum
    deletes flow runs ended more than the retention ago, and their orphaned logs and
    artifacts (hourly). Prefect's minimum is one hour."""
    days = retention_days()
    if days == 0:
        return {}
    seconds = max(3600, int(days * 86400))
    return {"PREFECT_SERVER_SERVICES_DB_VACUUM_ENABLED": "events,flow_runs",
            "PREFECT_SERVER_SERVICES_DB_VACUUM_RETENTION_PERIOD": str(seconds)}


@dataclass
class Pruned:
    flow_runs: int = 0
    artifacts: int = 0


def shrink(database: Path | None, older_than: timedelta) -> str:
    """After the API's deletes: the database of agentv's own server (``database``, None
    for another server) compacted; one line saying what it came to (or why not)."""
    from agentv.flows.prefect.db_compact import compact, megabytes
    if database is None:
        return ("database: not compacted — the server is not agentv's own "
                "(only its API deleted the runs; the file keeps its size until the "
                "server's owner vacuums it)")
    done = compact(database, datetime.now(timezone.utc) - older_than)
    trimmed = ", ".join(f"{n} {what}" for what, n in done.trimmed.items() if n)
    line = (f"database: {megabytes(done.before)} → {megabytes(done.after)} (file and "
            f"write-ahead log, {database})")
    if trimmed:
        line += f"; also deleted {trimmed}"
    if not done.checkpointed:
        line += "; the server kept its write-ahead log busy: it empties at its next checkpoint"
    return line


async def prune_flow_runs(older_than: timedelta) -> Pruned:
    """Delete the flow runs that started more than ``older_than`` ago, and their artifacts
    (the Prefect API of this process: ``PREFECT_API_URL``)."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        ArtifactFilter,
        ArtifactFilterFlowRunId,
        FlowRunFilter,
        FlowRunFilterStartTime,
    )
    from prefect.client.schemas.sorting import FlowRunSort
    cutoff = datetime.now(timezone.utc) - older_than
    old = FlowRunFilter(start_time=FlowRunFilterStartTime.model_validate({"before_": cutoff}))
    pruned = Pruned()
    async with get_client() as client:
        while True:
            runs = await client.read_flow_runs(flow_run_filter=old, limit=PAGE,
                                               sort=FlowRunSort.START_TIME_ASC)
            if not runs:
                return pruned
            ids = [run.id for run in runs]
            theirs = ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=ids))
            while artifacts := await client.read_artifacts(artifact_filter=theirs,
                                                           limit=PAGE):
                for artifact in artifacts:
                    await client.delete_artifact(artifact.id)
                pruned.artifacts += len(artifacts)
            for run_id in ids:
                await client.delete_flow_run(run_id)  # its task runs go with it
            pruned.flow_runs += len(ids)
