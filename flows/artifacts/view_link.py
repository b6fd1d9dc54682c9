"""The flow run's first artifact: a link to the run's page in the eval viewer
(``agentv view``), created as the run starts, before any case runs, under the key
``agentv-view-<suites>-<targets>`` (its history: every run's page).

The page's address is the running viewer's when it serves the run's results folder, else
the one ``agentv view <results folder>`` serves it at (``http://127.0.0.1:4210/run/<id>``,
flows/prefect/viewer.py): the link works once that command has started the viewer, and the
link text and description say so. The viewer links back to the flow run (its run and case
pages' "Prefect" link: the flow run's UI address the results file records)."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from agentv.flows.prefect.artifact_spec import link_artifact
from agentv.flows.prefect.naming import artifact_key, plan_labels
from agentv.flows.prefect.recording import Recording
from agentv.flows.prefect.viewer import ViewPage, view_page

log = logging.getLogger("agentv.artifacts")


def view_link_text(page: ViewPage) -> tuple[str, str]:
    """(link text, description) of a run's viewer page."""
    if page.live:
        return (f"agentv view: {page.run_id} — failing cases first",
                f"agentv viewer: this run's cases, failures first ({page.command} serves it)")
    return (f"agentv view: {page.run_id} — failing cases first (start the viewer first: "
            f"{page.command})",
            f"agentv viewer: this run's cases, failures first; the page answers once "
            f"`{page.command}` has started the viewer")


async def publish_view_link(results: str | Path, plan: Any, recording: Recording) -> Any:
    """The viewer-page link artifact of the run writing ``results`` (``plan``: its validated
    plan, for the key), while Prefect records; a failure to publish is logged, not raised."""
    if recording.lost is not None:
        return None
    suites, targets, _ = plan_labels(plan)
    page = view_page(results)
    text, description = view_link_text(page)
    try:
        return await recording.send(link_artifact(
            artifact_key("view", suites or ["none"], targets or ["none"]), page.url, text,
            description))
    except Exception as err:  # noqa: BLE001 - a link lost is logged, the run goes on
        log.warning("could not publish the viewer link: %s", err)
        return None
