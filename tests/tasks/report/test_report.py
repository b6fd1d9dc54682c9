"""`agentv report`: the viewer as one self-contained file — every page's data embedded,
nothing loaded from the network, case text unable to break out of the page."""
from __future__ import annotations

import json
import re

from agentv.tasks.report import write_report
from tests.conftest import run_cli
from tests.tasks.view.records import geo_run, record, write_run


def embedded(html: str) -> dict:
    found = re.search(r"<script type='application/json' id='agentv-data'>(.*?)</script>",
                      html, re.S)
    assert found
    return json.loads(found.group(1))


def test_two_runs_are_a_comparison_with_every_page(tmp_path):
    a = geo_run(tmp_path / "eval_a.jsonl", stamp="2026-11-28T09:00:00.000Z")
    b = geo_run(tmp_path / "eval_b.jsonl", ("alpha",), regress="mountain")
    html = write_report([str(a), str(b)], tmp_path / "r.html").read_text()
    assert not re.search(r"src\s*=", html) and "http" not in html.split("<script>")[0]
    data = embedded(html)
    assert data["mode"] == "bundle" and data["start"] == "#/compare/eval_b/"
    assert [r["id"] for r in data["runs"]] == ["eval_a", "eval_b"]
    pages = data["pages"]
    compare = pages["compare"]["eval_b"][""]
    assert compare["rows"][0]["id"] == "mountain" and compare["paired"]["clusters"] is None
    assert pages["run"]["eval_b"]["baseline"]["id"] == "eval_a"
    case = pages["cases"]["eval_b"]["mountain\u00010\u0001alpha"]
    assert case["others"][0]["label"] == "eval_a · alpha (baseline)"
    assert len(pages["cases"]["eval_a"]) == 4


def test_one_matrix_run_opens_on_its_case_table(tmp_path):
    path = geo_run(tmp_path / "eval_m.jsonl", ("alpha", "beta"))
    proc = run_cli("report", str(path), "-o", str(tmp_path / "m.html"))
    assert proc.returncode == 0 and proc.stdout.strip() == f"report: {tmp_path / 'm.html'}"
    data = embedded((tmp_path / "m.html").read_text())
    assert data["start"] == "#/run/eval_m" and data["pages"]["compare"] == {}
    assert data["pages"]["run"]["eval_m"]["targets"] == ["alpha", "beta"]


def test_case_text_is_escaped(tmp_path):
    path = write_run(tmp_path / "eval_x.jsonl", [record(
        "c1", "alpha", 0.1, "</script><!-- \x1b[31m", reason="<b>bold</b>")])
    html = write_report(str(path), tmp_path / "x.html").read_text()
    assert html.count("</script>") == 2 and "<!--" not in html and "<b>bold" not in html
    answer = embedded(html)["pages"]["cases"]["eval_x"]["c1\u00010\u0001alpha"]["answer"]
    assert answer == "</script><!-- \\x1b[31m"
