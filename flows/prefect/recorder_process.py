"""Starting the recorder process (flows/prefect/recorder.py) — as early as the ``agentv``
command knows it will run an eval whose stages run in its own process and a Prefect API
answers, so Prefect's import there overlaps this process's own start and loading. Light:
nothing here imports more than the standard library and the server's address lookup."""
from __future__ import annotations

import subprocess
import sys


def mirrored(task_runner: str | None, prefect_tasks: str | None) -> bool:
    """Whether a run's stages run in its own process, mirrored to Prefect by the recorder
    (not when Prefect's engine runs them: on Dask, or a task run per case)."""
    return task_runner != "dask" and prefect_tasks != "case"


def start_recorder(verbose: bool = False) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "agentv.flows.prefect.recorder"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=None if verbose else subprocess.DEVNULL)


def start_early(task_runner: str | None, prefect_tasks: str | None,
                verbose: bool = False) -> subprocess.Popen | None:
    """The recorder of a run with these options, started now when its stages will run
    here and a Prefect API answers; else None."""
    from agentv.flows.prefect.server import running_api
    if mirrored(task_runner, prefect_tasks) and running_api():
        return start_recorder(verbose)
    return None


def discard(recorder: subprocess.Popen | None) -> None:
    """A recorder whose run never began goes, having recorded nothing."""
    if recorder is not None:
        recorder.kill()
        recorder.wait()
