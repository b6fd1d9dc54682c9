"""The viewer's web app (Starlette): ``/`` the runs, ``/run/<id>`` a run's case table,
``/run/<id>/case/<eval_id>?trial=&target=`` one case (a stable URL to share),
``/compare/<id>?baseline=<id>`` a run against its baseline (default: the previous run of
the same suites and targets), ``/api/<page>`` the same data as JSON, ``/health``."""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Callable

from agentv.providers.errors import ConfigError
from agentv.tasks.view.index import RunIndex
from agentv.tasks.view.page import clean, render
from agentv.tasks.view.pages import NotFound, Pages


def _page(kind: str, title: str, build: Callable[[], dict[str, Any]]):
    from starlette.responses import HTMLResponse, PlainTextResponse
    try:
        data = build()
    except NotFound as err:
        return PlainTextResponse(str(err), status_code=404)
    except (ConfigError, OSError, ValueError) as err:
        return PlainTextResponse(f"cannot read this run: {err}", status_code=500)
    return HTMLResponse(render(title, {"mode": "server", "page": kind, "data": data}))


def _warm(pages: Pages) -> None:
    try:
        pages.warm()
    except (ConfigError, OSError, ValueError, NotFound):
        pass  # the pages say what is wrong when asked


def create_app(sources: list[str | Path], cache: Path | None = None):
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, PlainTextResponse
    from starlette.routing import Route
    pages = Pages(RunIndex(sources, cache))
    threading.Thread(target=_warm, args=(pages,), daemon=True, name="agentv-view-warm").start()

    def runs(request):
        return _page("runs", "agentv · runs", pages.runs)

    def run(request):
        run_id = request.path_params["run_id"]
        return _page("run", f"agentv · {run_id}", lambda: pages.run(run_id))

    def case(request):
        p, q = request.path_params, request.query_params
        try:
            trial = int(q.get("trial") or 0)
        except ValueError:
            return PlainTextResponse("trial must be a number", status_code=400)
        return _page("case", f"agentv · {p['eval_id']}",
                     lambda: pages.case(p["run_id"], p["eval_id"], trial, q.get("target") or ""))

    def compare(request):
        run_id = request.path_params["run_id"]
        return _page("compare", f"agentv · compare {run_id}",
                     lambda: pages.compare(run_id, request.query_params.get("baseline")))

    def api_runs(request):
        return JSONResponse(clean(pages.runs()))

    def health(request):  # the pid: `agentv view` knows its own viewer from another
        return PlainTextResponse(f"ok {os.getpid()}")

    return Starlette(routes=[
        Route("/", runs), Route("/run/{run_id}", run),
        Route("/run/{run_id}/case/{eval_id:path}", case), Route("/compare/{run_id}", compare),
        Route("/api/runs", api_runs), Route("/health", health)])
