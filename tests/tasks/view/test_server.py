"""The viewer's routes: each page carries its data, a stable URL per case, 404s."""
from __future__ import annotations

import json
import os
import re
import warnings

with warnings.catch_warnings():  # starlette's note on httpx, not about agentv
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from agentv.tasks.view.server import create_app
from tests.tasks.view.records import geo_run


def page_data(html: str) -> dict:
    found = re.search(r"<script type='application/json' id='agentv-data'>(.*?)</script>",
                      html, re.S)
    assert found
    return json.loads(found.group(1))


def test_pages(tmp_path):
    geo_run(tmp_path / "eval_a.jsonl", stamp="2026-11-28T09:00:00.000Z")
    geo_run(tmp_path / "eval_b.jsonl", regress="mountain")
    client = TestClient(create_app([tmp_path]))
    assert client.get("/health").text == f"ok {os.getpid()}"
    runs = page_data(client.get("/").text)
    assert runs["page"] == "runs" and [r["id"] for r in runs["data"]["runs"]] == ["eval_b",
                                                                                   "eval_a"]
    run = page_data(client.get("/run/eval_b").text)["data"]
    assert run["rows"][0]["id"] == "mountain" and run["baseline"]["id"] == "eval_a"
    case = client.get("/run/eval_b/case/mountain?trial=0&target=alpha")
    data = page_data(case.text)["data"]
    assert data["verdict"] == "fail" and data["others"][0]["label"] == \
        "eval_a · alpha (baseline)"
    compare = page_data(client.get("/compare/eval_b").text)["data"]
    assert compare["baseline"]["id"] == "eval_a" and compare["rows"][0]["id"] == "mountain"
    assert page_data(client.get("/compare/eval_a").text)["data"]["baseline"] is None
    assert client.get("/run/nope").status_code == 404
    assert client.get("/run/eval_b/case/nope").status_code == 404
    assert "src=" not in client.get("/").text  # nothing loaded from elsewhere


def test_case_text_cannot_close_the_script(tmp_path):
    from tests.tasks.view.records import record, write_run
    write_run(tmp_path / "eval_x.jsonl", [record("c</script><b>", "alpha", 0.1,
                                                 "</script><script>alert(1)</script>")])
    html = TestClient(create_app([tmp_path])).get("/run/eval_x").text
    assert html.count("</script>") == 2  # the data's and the app's
    assert page_data(html)["data"]["rows"][0]["c"][0]["a"].startswith("</script>")
