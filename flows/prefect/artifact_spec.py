"""An artifact as plain data, before it reaches Prefect: its type, key, description and
the text Prefect stores (markdown, a table's JSON rows, a link's markdown). Built without
Prefect; a run's recording sends it (``Recording.send``), in this process inside a flow
run or through the recorder process (flows/prefect/mirror.py)."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from agentv.tasks.view.page import clean


@dataclass(frozen=True)
class Artifact:
    type: str  # "markdown" (a link too) | "table"
    key: str | None
    description: str
    data: str

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def markdown_artifact(key: str | None, markdown: str, description: str) -> Artifact:
    return Artifact("markdown", key, description, markdown)


def table_artifact(rows: list[dict[str, Any]], description: str,
                   key: str | None = None) -> Artifact:
    """A table of ``rows`` serialized once (Prefect's own path validates every row with
    pydantic; agentv's rows are JSON already). A NaN (or an infinity: not JSON) is written
    as null, as the viewer writes it."""
    try:
        text = json.dumps(rows, allow_nan=False)
    except ValueError:
        text = json.dumps(clean(rows))
    return Artifact("table", key, description, text)


def link_artifact(key: str | None, link: str, link_text: str | None,
                  description: str) -> Artifact:
    """A link, as Prefect's link artifact writes it: markdown, ``[text](link)``."""
    return Artifact("markdown", key, description, f"[{link_text or link}]({link})")

