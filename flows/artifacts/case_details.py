"""A markdown artifact per failed case, for the ``DETAILED`` worst of a run: the whole
case as tasks/results/case_markdown.py draws it (input turns, answer, expected outcome,
each evaluator's verdict and reasoning, tool calls), attached to the flow run under a key
per suite × case × target × trial (``case_key``: the UI's Artifacts page keeps each case's
history across runs) and described by the full case id, target and trial (the card's
title in the UI). The failures artifact links each one, so a failed case is two clicks from
the printed flow-run link: Artifacts, then the case.

The records are read back from the results file at the end (the run keeps none in memory),
and only when a case failed."""
from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any

from agentv.flows.artifacts.case_table import suite_of
from agentv.flows.prefect.artifact_spec import markdown_artifact
from agentv.flows.prefect.naming import MAX_KEY, slug
from agentv.flows.prefect.recording import Recording
from agentv.providers.printable import printable
from agentv.tasks.results.case_markdown import case_markdown
from agentv.tasks.results.failures import Failure
from agentv.tasks.results.frames import iter_records

DETAILED = 20
Key = tuple[str, str, int]  # (eval_id, target, trial)


def case_key(suite: str, eval_id: str, target: str, trial: int) -> str:
    """``agentv-case-<suite>-<case id>-<target>-t<trial>-<digest>``: a valid Prefect key
    (lowercase letters, digits, dashes). The readable part is slugged and cut to fit
    ``MAX_KEY``; the digest of the exact four values keeps two cases apart whose slugs
    match (``a_b``/``a-b``, ``A``/``a``) or whose readable part was cut."""
    exact = json.dumps([suite, eval_id, target, int(trial)], ensure_ascii=False)
    digest = hashlib.sha1(exact.encode()).hexdigest()[:10]
    tail = f"-t{int(trial)}-{digest}"
    readable = slug(f"agentv-case-{suite}-{eval_id}-{target}")[:MAX_KEY - len(tail)]
    return readable.rstrip("-") + tail


def case_title(eval_id: str, target: str, trial: int) -> str:
    """The case page's description (its card's title in the UI): the whole case id."""
    return printable(f"{eval_id} — failed case · target {target} · trial {trial} (agentv)")


def _key(record: dict[str, Any]) -> Key:
    return (str(record.get("eval_id")), str(record.get("target") or ""),
            int(record.get("trial") or 0))


def records_of(results: Path, keys: set[Key]) -> dict[Key, dict[str, Any]]:
    """The results file's records of these cases (the last one of each: a resumed run
    may have run a case again)."""
    found: dict[Key, dict[str, Any]] = {}
    for record in iter_records(results):
        key = _key(record)
        if key in keys:
            found[key] = record
    return found


def artifact_url(ui_run_url: str | None, artifact_id: Any) -> str | None:
    """The UI page of an artifact, next to the flow run's page (``…/flow-runs/flow-run/ID``)."""
    if not ui_run_url or artifact_id is None or "/flow-runs/" not in ui_run_url:
        return None
    return f"{ui_run_url.split('/flow-runs/')[0]}/artifacts/artifact/{artifact_id}"


async def publish_case_details(results: Path, worst: list[Failure], recording: Recording
                               ) -> dict[Key, str]:
    """One artifact per failed case (the ``DETAILED`` worst); each case's page address."""
    ui_run_url = recording.flow_run_url()
    wanted = {(f.eval_id, f.target, f.trial): f for f in worst[:DETAILED]}
    if not wanted or recording.lost is not None:
        return {}
    records = await asyncio.to_thread(records_of, results, set(wanted))

    async def one(key: Key, record: dict[str, Any]) -> tuple[Key, str | None]:
        made = await recording.send(markdown_artifact(
            case_key(suite_of(record.get("case_key")), *key),
            case_markdown(record, wanted[key].verdict, wanted[key].reason),
            case_title(*key)), want_id=True)
        return key, artifact_url(ui_run_url, made)
    pages = await asyncio.gather(*(one(k, r) for k, r in records.items()))
    return {key: url for key, url in pages if url}
