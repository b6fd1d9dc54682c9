"""An agent case's workspace after scoring, as AgentV 4.x finishes it: a case that failed or
errored keeps its workspace (``retain_on_failure: keep``, the default) and its record says
where (``workspace_path``); a passing case's is removed unless ``retain_on_success: keep`` or
``--keep-workspaces``.

The provider hands the workspace over (``Request.hand_over_workspace`` →
``Response.workspace``) with the answer, so the evaluators, code judges and
``file_changes`` checks see it as the agent left it; ``finish_workspace`` runs once the
record is built. A case is failed when its record is not a pass: an error, a 4.x
``execution_status`` other than ok, a ``--threshold`` miss, else a score below
``evaluators.base.PASS_THRESHOLD`` (the summary's and the progress line's count).
"""
from __future__ import annotations

import logging
from typing import Any

from agentv.evaluators.base import verdict_for
from agentv.providers.base import Response

log = logging.getLogger("agentv.run")


def case_failed(record: dict[str, Any]) -> bool:
    if record.get("error"):
        return True
    verdict = record.get("verdict") or verdict_for(float(record.get("score") or 0.0))
    return verdict != "pass"


def finish_workspace(record: dict[str, Any], response: Response, keep_all: bool) -> None:
    """Keep or remove the workspace the provider handed over; the record's
    ``workspace_path`` is the kept folder, or absent when it was removed."""
    workspace, response.workspace = response.workspace, None
    if workspace is None:
        return
    kept = workspace.finish(failed=case_failed(record), keep_all=keep_all)
    if kept:
        record["workspace_path"] = kept
        log.info("case %s [%s]: workspace kept at %s", record.get("eval_id"),
                 record.get("target"), kept)
    else:
        record.pop("workspace_path", None)


def abandon_workspace(response: Response | None) -> None:
    """Scoring did not finish (a bug, a cancelled run): the workspace is kept as a failed
    case's would be, for a look."""
    workspace = response.workspace if response is not None else None
    if workspace is not None:
        response.workspace = None  # type: ignore[union-attr]
        workspace.finish(failed=True)
