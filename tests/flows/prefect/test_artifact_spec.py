"""Artifacts as plain data: the text Prefect stores for each kind, as Prefect's own artifact
classes write it."""
from __future__ import annotations

import json
import math

from agentv.flows.prefect.artifact_spec import link_artifact, markdown_artifact, table_artifact


def test_a_link_is_markdown_as_prefects_link_artifact_writes_it():
    from prefect.artifacts import LinkArtifact
    made = link_artifact("k", "http://x/run/r", "agentv view: r", "d")
    prefect = LinkArtifact(key="k", link="http://x/run/r", link_text="agentv view: r")
    assert (made.type, made.data) == (prefect.type, prefect._format())
    assert link_artifact(None, "http://x", None, "d").data == "[http://x](http://x)"


def test_a_table_is_its_rows_json_a_nan_written_as_null():
    rows = [{"a": 1, "b": "x"}, {"a": math.nan, "b": [math.nan]}]
    made = table_artifact(rows, "desc", "key")
    assert made.type == "table" and made.key == "key" and made.description == "desc"
    assert json.loads(made.data) == [{"a": 1, "b": "x"}, {"a": None, "b": [None]}]


def test_markdown_is_its_text():
    made = markdown_artifact("k", "# hi", "d")
    assert made.as_json() == {"type": "markdown", "key": "k", "description": "d",
                              "data": "# hi"}
