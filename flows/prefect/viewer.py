"""Where the eval viewer (``agentv view``, tasks/view/) shows a run: the address of its run
and case pages, for the console's ``view:`` line, the flow run's first artifact
(flows/artifacts/view_link.py) and the nightly's regressed cases (deployments/nightly.py).

``agentv view`` records the viewer it starts in ``$AGENTV_HOME/view.json`` (its pid, URL and
the results folders or files it serves) and serves on ``DEFAULT_PORT`` when that port is
free (else on a free one), as the Prefect server keeps its 4200. So a run's page has an
address before any viewer runs: the running viewer's, when it serves the run's results,
else ``http://127.0.0.1:4210/run/<results file stem>``, which answers once
``agentv view <results folder>`` has started (``ViewPage.command`` says so).
No Prefect import here (the viewer is a separate process).
"""
from __future__ import annotations

import json
import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlencode

DEFAULT_PORT = 4210


def view_state_file() -> Path:
    from agentv.flows.prefect.server import agentv_home
    return agentv_home() / "view.json"


def read_view() -> dict | None:
    try:
        return json.loads(view_state_file().read_text())
    except (OSError, ValueError):
        return None


def running_view(sources: list[str] | None = None) -> str | None:
    """The recorded viewer's URL when it answers (and serves ``sources``, when given)."""
    from agentv.flows.prefect.server import healthy
    state = read_view()
    if not state or not healthy(state.get("url", "")):
        return None
    return state["url"] if sources is None or state.get("sources") == sources else None


def port_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def preferred_port() -> int:
    """``DEFAULT_PORT`` when free, else a free port."""
    from agentv.flows.prefect.server import _free_port
    return DEFAULT_PORT if port_free(DEFAULT_PORT) else _free_port()


def _serves(state: dict, path: Path) -> bool:
    served = [Path(s) for s in state.get("sources") or []]
    return any(path == s or path.parent == s for s in served)


def run_link(results: str | Path) -> str | None:
    """The running viewer's page of a run (its results file), when a viewer serves it."""
    state = read_view()
    path = Path(results).resolve()
    if not state or not _serves(state, path) or not running_view():
        return None
    return f"{state['url']}/run/{quote(path.stem)}"


@dataclass(frozen=True)
class ViewPage:
    """A run's viewer page: ``url``; ``live``: a viewer serving it answers now; ``command``:
    what opens it (``agentv view <results folder>``)."""

    url: str
    live: bool
    command: str
    run_id: str

    @property
    def base(self) -> str:
        return self.url.split("/run/")[0]

    def case_url(self, eval_id: str, target: str | None = None, trial: int = 0) -> str:
        """The case's stable page (``/run/<id>/case/<eval_id>?trial=&target=``)."""
        query = {"trial": trial, **({"target": target} if target else {})}
        return f"{self.url}/case/{quote(str(eval_id), safe='')}?{urlencode(query)}"

    def compare_url(self, baseline: str | Path) -> str:
        return f"{self.base}/compare/{quote(self.run_id)}?" \
            f"{urlencode({'baseline': Path(baseline).stem})}"


def view_page(results: str | Path) -> ViewPage:
    """The page of a run (its results file): the running viewer's when it serves the file,
    else the address ``agentv view <its folder>`` serves it at on ``DEFAULT_PORT``."""
    path = Path(results).resolve()
    command = f"agentv view {path.parent}"
    live = run_link(path)
    if live is not None:
        return ViewPage(live, True, command, path.stem)
    return ViewPage(f"http://127.0.0.1:{DEFAULT_PORT}/run/{quote(path.stem)}", False, command,
                    path.stem)
