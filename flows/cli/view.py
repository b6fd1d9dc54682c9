"""``agentv view [SOURCES...]``: the eval viewer (tasks/view/) over a results folder
(default ``.agentv/results/``) or results files, served in the background once — started
as agentv starts its Prefect server (flows/prefect/server.py): a detached process on
loopback port 4210 (``DEFAULT_PORT``; a free port when that one is taken), so a run's page
has the same address before and after the viewer starts (flows/prefect/viewer.py),
recorded in ``$AGENTV_HOME/view.json``, reused while it answers for the same sources — its
address printed (the runs' summaries kept in ``view-index.json`` there);
``agentv view --stop`` stops it."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional
from urllib.parse import quote

import typer

from agentv.flows.cli.output import fail
from agentv.flows.prefect.viewer import (  # noqa: F401 - run_link: the console's view: line
    DEFAULT_PORT,
    preferred_port,
    read_view,
    run_link,
    running_view,
    view_state_file,
)
from agentv.providers.errors import ConfigError

START_TIMEOUT_S = 30.0


def stop_view() -> bool:
    from agentv.flows.prefect.server import healthy, stop_recorded
    state = read_view()
    if not stop_recorded(state, view_state_file()):
        return False
    assert state is not None
    deadline = time.monotonic() + 10
    while healthy(state.get("url", ""), timeout=0.5) and time.monotonic() < deadline:
        time.sleep(0.1)  # stopped means no longer answering
    return True


def _answers(url: str, pid: int) -> bool:
    """The viewer at ``url`` is the process ``pid`` (not another one on that port)."""
    import urllib.request
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=1) as resp:
            return resp.read().decode() == f"ok {pid}"
    except (OSError, ValueError):
        return False


def _spawn(sources: list[str], port: int) -> tuple[subprocess.Popen, str]:
    from agentv.flows.prefect.server import agentv_home, started_at
    home = agentv_home()
    log = open(home / "view.log", "ab")
    proc = subprocess.Popen([sys.executable, "-m", "agentv.tasks.view.serve", "--port",
                             str(port), "--cache", str(home / "view-index.json"), *sources],
                            stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    view_state_file().write_text(json.dumps({"pid": proc.pid, "started": started_at(proc.pid),
                                             "url": url, "sources": sources}))
    return proc, url


def start_view(sources: list[str], port: int | None = None) -> str:
    """Start the viewer detached (on ``port``, else on DEFAULT_PORT when free, else on a
    free port), record it, wait until it answers; returns its URL."""
    from agentv.flows.prefect.server import _free_port, agentv_home
    agentv_home().mkdir(parents=True, exist_ok=True)
    chosen = port or preferred_port()
    proc, url = _spawn(sources, chosen)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if _answers(url, proc.pid):
            return url
        if proc.poll() is not None:
            if port is None and chosen == DEFAULT_PORT:  # taken meanwhile: any free port
                chosen = _free_port()
                proc, url = _spawn(sources, chosen)
                continue
            raise RuntimeError(f"the viewer exited with code {proc.returncode} "
                               f"(see {agentv_home() / 'view.log'})")
        time.sleep(0.2)
    raise RuntimeError(f"the viewer did not answer within {START_TIMEOUT_S:.0f}s")


def _sources(paths: list[str]) -> list[str]:
    from agentv.tasks.view.index import DEFAULT_FOLDER
    given = paths or [DEFAULT_FOLDER]
    missing = [p for p in given if not Path(p).exists()]
    if missing:
        raise ConfigError("no results here (run `agentv eval` first, or give a results "
                          "folder or file)", missing[0])
    return [str(Path(p).resolve()) for p in given]


def view_command(
    paths: Optional[List[str]] = typer.Argument(
        None, metavar="RESULTS", help="Results folders or files (default: "
        ".agentv/results/)."),
    port: Optional[int] = typer.Option(None, metavar="PORT",
                                       help="Port (default: 4210, else a free one)."),
    stop: bool = typer.Option(False, "--stop", help="Stop the background viewer."),
) -> None:
    """Browse runs, failing cases and why, targets side by side, and a run against its
    baseline, in a local web viewer (started in the background once; its address printed)."""
    if stop:
        typer.echo("stopped" if stop_view() else "no agentv viewer recorded")
        return
    try:
        sources = _sources(list(paths or []))
    except ConfigError as err:
        fail(err)
    url = running_view(sources)
    if url is None:
        stop_view()
        try:
            url = start_view(sources, port)
        except (OSError, RuntimeError) as err:
            typer.echo(f"error: {err}", err=True)
            raise typer.Exit(1) from None
    typer.echo(f"agentv view: {url}/  (stop it with `agentv view --stop`)")
    for source in sources:
        if Path(source).is_file():
            typer.echo(f"  {Path(source).stem}: {url}/run/{quote(Path(source).stem)}")

