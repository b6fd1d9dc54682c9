"""Scale-out options, checked before Prefect is imported.

* ``--shard I/N``: run only the I-th of N shards of the plan (jobs I-1, I-1+N, …), so N
  flow runs — e.g. N runs of one deployment picked up by the workers of a work pool —
  share a suite. ``load_results`` reads the shards' files together (a list or a glob).
* ``--prefect-tasks batch|case``: coarse batch task runs (default) or, for small suites
  watched in the UI, two task runs per case.
* ``--task-runner dask [--dask-address tcp://host:8786]``: the flow's case batches run on
  a Dask cluster through prefect-dask (a local cluster when no address is given).
"""
from __future__ import annotations

import importlib.util
import re
from typing import Any, Sequence, TypeVar

from agentv.providers.errors import ConfigError

TASK_RUNNERS = ("default", "dask")
MAX_SHARDS = 10_000  # more shards than that is a typo, not a plan
DASK_ADDRESS = re.compile(r"(?:(?:tcp|tls|ws|wss|ucx)://)?(?:\[[0-9a-fA-F:]+\]|[\w.-]+):(\d{1,5})"
                          r"|inproc://\S+")
PREFECT_TASKS = ("batch", "case")
T = TypeVar("T")


def parse_shard(value: str | None) -> tuple[int, int] | None:
    if value in (None, ""):
        return None
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", str(value))
    if not match:
        raise ConfigError(f"must look like I/N (e.g. 2/4), got {value!r}", None, "--shard")
    if len(match.group(2)) > 6 or int(match.group(2)) > MAX_SHARDS:
        raise ConfigError(f"N must be at most {MAX_SHARDS}, got {value!r}", None, "--shard")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise ConfigError(f"needs 1 <= I <= N, got {value!r}", None, "--shard")
    return index, count


def select_shard(jobs: Sequence[T], shard: tuple[int, int] | None) -> Sequence[T]:
    """Round-robin split: shard I of N keeps every N-th job starting at I-1."""
    if shard is None:
        return jobs
    index, count = shard
    return jobs[index - 1::count]


def check_task_runner(kind: str | None, address: str | None) -> str:
    """Validate ``--task-runner``; an address alone implies dask."""
    kind = kind or ("dask" if address else "default")
    if kind not in TASK_RUNNERS:
        raise ConfigError(f"unknown task runner '{kind}' (expected one of: "
                          f"{', '.join(TASK_RUNNERS)})", None, "--task-runner")
    if address and kind != "dask":
        raise ConfigError("only applies with --task-runner dask", None, "--dask-address")
    if address is not None:
        check_dask_address(address)
    if kind == "dask" and importlib.util.find_spec("prefect_dask") is None:
        raise ConfigError("needs prefect-dask: pip install 'agentv[dask]'", None,
                          "--task-runner")
    return kind


def check_dask_address(address: str) -> None:
    """A scheduler address Dask can dial: ``[tcp|tls|ws|wss|ucx://]host:port`` (or
    ``inproc://...``); checked here, not by a traceback from distributed at the run's start."""
    match = DASK_ADDRESS.fullmatch(address.strip())
    if not match or (match.group(1) and not 0 < int(match.group(1)) < 65536):
        raise ConfigError(f"must be a Dask scheduler address like tcp://host:8786, got "
                          f"{address!r}", None, "--dask-address")


def check_prefect_tasks(mode: str | None, task_runner: str) -> str:
    """``--prefect-tasks batch|case``: Prefect task runs per batch of cases (default) or
    two per case (invoke-provider, run-evaluators) in the flow's process."""
    mode = mode or "batch"
    if mode not in PREFECT_TASKS:
        raise ConfigError(f"unknown mode '{mode}' (expected one of: {', '.join(PREFECT_TASKS)})",
                          None, "--prefect-tasks")
    if mode == "case" and task_runner == "dask":
        raise ConfigError("case runs each case in the flow's process; it does not combine with "
                          "--task-runner dask (use batch)", None, "--prefect-tasks")
    return mode


def make_task_runner(kind: str, address: str | None) -> Any:
    """The Prefect task runner for ``kind`` (None: the flow's default)."""
    if kind != "dask":
        return None
    from prefect_dask import DaskTaskRunner
    if address:
        return DaskTaskRunner(address=address)
    return DaskTaskRunner(cluster_kwargs={"dashboard_address": None, "processes": True})
