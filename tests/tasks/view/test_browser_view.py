"""`agentv view` in headless Chromium at 1280×800: the run page's first screen shows every
failing case's id, answer and first failing reason in red; one click opens the full case; a
two-target matrix shows both answers side by side with Δ; the compare page puts the seeded
regression first; `agentv view --stop` stops it. Screenshots go to $AGENTV_SCREENSHOTS
(default .agentv/screenshots/, CI artifacts)."""
from __future__ import annotations

import base64
import json
import os
import re
import urllib.request
from pathlib import Path

import pytest

from tests.browser import SCREENSHOTS, Browser, chromium
from tests.conftest import run_cli
from tests.tasks.view.records import geo_run

pytestmark = pytest.mark.slow  # starts the viewer and Chromium
RED = "rgb(207, 34, 46)"


def shot(b: Browser, name: str) -> Path:
    folder = Path(os.environ.get("AGENTV_SCREENSHOTS") or SCREENSHOTS)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(base64.b64decode(b.call("Page.captureScreenshot", format="png")["data"]))
    return path


def open_page(b: Browser, url: str) -> None:
    b.open(url)
    b.wait_for("document.documentElement.dataset.rendered === '1' && "
               f"location.href === {json.dumps(url)}", timeout=30)


@pytest.fixture(scope="module")
def viewer(tmp_path_factory):
    folder = tmp_path_factory.mktemp("view")
    results = folder / "results"
    geo_run(results / "eval_a.jsonl", stamp="2026-11-28T09:00:00.000Z")
    geo_run(results / "eval_b.jsonl", regress="mountain", stamp="2026-11-28T10:00:00.000Z")
    geo_run(results / "eval_m.jsonl", ("alpha", "beta"), stamp="2026-11-28T11:00:00.000Z")
    env = {"AGENTV_HOME": str(folder / "home")}
    proc = run_cli("view", str(results), env=env)
    assert proc.returncode == 0, proc.stderr
    url = re.search(r"agentv view: (http://127\.0\.0\.1:\d+)/", proc.stdout).group(1)
    again = run_cli("view", str(results), env=env)
    assert url in again.stdout  # started once: the second call reuses it
    yield url
    assert run_cli("view", "--stop", env=env).stdout.strip() == "stopped"
    with pytest.raises(OSError):
        urllib.request.urlopen(url + "/health", timeout=2)


@pytest.fixture(scope="module")
def browser():
    with Browser(chromium()) as b:
        b.call("Emulation.setDeviceMetricsOverride", width=1280, height=800,
               deviceScaleFactor=1, mobile=False)
        yield b


FIRST_SCREEN = """Array.from(document.querySelectorAll('#cases tbody tr.bad, #cases tbody tr.err'))
  .map(tr => { const r = tr.getBoundingClientRect();
    const cells = Array.from(tr.querySelectorAll('.v.fail, .v.error'));
    const reasons = Array.from(tr.querySelectorAll('.reason')).filter(e => e.textContent);
    return {id: tr.dataset.case, bottom: r.bottom, text: tr.innerText,
      badge: cells.map(c => getComputedStyle(c).backgroundColor),
      reason: reasons.map(e => getComputedStyle(e).color),
      idColor: getComputedStyle(tr.querySelector('.cid a')).color}; })"""


def test_first_screen_shows_every_failure_in_red_and_one_click_opens_it(viewer, browser):
    b = browser
    open_page(b, viewer + "/run/eval_b")
    failing = b.js(FIRST_SCREEN)
    assert [f["id"] for f in failing] == ["mountain"]
    row = failing[0]
    assert row["bottom"] <= 800 and "I do not know." in row["text"]
    assert "judge (0.10 fail): mountain: no answer given" in row["text"]
    assert row["badge"] == [RED] and row["reason"] == [RED] and row["idColor"] == RED
    assert b.js("document.querySelector('h1').innerText").endswith("— failures")
    shot(b, "view-run.png")
    b.js("document.querySelector('#cases tr.bad .cid a').click()")
    b.wait_for("location.pathname.endsWith('/case/mountain') && "
               "document.documentElement.dataset.rendered === '1'")
    assert b.js("location.search") == "?trial=0&target=alpha"
    text = b.text()
    for needle in ("FAIL · score 0.100 — judge (0.10 fail): mountain: no answer given",
                   "Answer", "I do not know.", "Expected outcome", "The right answer to mountain.",
                   "Evaluators", "mountain: no answer given", "Conversation",
                   "You are a careful assistant.", "Question of mountain?", "Trace",
                   "eval_a · alpha (baseline)", "-Mont Blanc.", "+I do not know.",
                   "latency", "cost"):
        assert needle in text, needle
    shot(b, "view-case.png")


def test_matrix_side_by_side_with_delta_and_filters(viewer, browser):
    b = browser
    open_page(b, viewer + "/run/eval_m")
    heads = b.js("Array.from(document.querySelectorAll('#cases th')).map(t => t.innerText)")
    assert heads == ["case", "input", "alpha", "answer · alpha", "why · alpha", "beta",
                     "answer · beta", "why · beta", "Δ"]
    france = b.js("""Array.from(document.querySelector('#cases tr[data-case="capital-france"]')
                     .cells).map(c => c.innerText.trim())""")
    assert france[3] == "Paris is the capital." and france[6] == "The capital is Lyon."
    assert france[8] == "-0.800" and france[5].startswith("FAIL")
    failing = b.js(FIRST_SCREEN)
    assert [f["id"] for f in failing] == ["river", "capital-france"]
    assert all(f["bottom"] <= 800 for f in failing)
    assert "error: Provider error: connection refused" in failing[0]["text"]
    shot(b, "view-matrix.png")
    b.js("document.querySelector('button[data-kind=failures]').click()")
    assert b.js("window.agentvView.shown()") == 1
    b.js("window.agentvView.filter('all'); window.agentvView.search('lyon')")
    assert b.js("Array.from(document.querySelectorAll('#cases tbody tr'))"
                ".map(r => r.dataset.case)") == ["capital-france"]
    open_page(b, viewer + "/run/eval_m/case/capital-france?trial=0&target=beta")
    text = b.text()
    for needle in ("eval_m · alpha", "-Paris is the capital.", "+The capital is Lyon.",
                   "search_web", "capital of France", "File changes", "+print('hello')"):
        assert needle in text, needle
    b.js("document.querySelector('.other').scrollIntoView()")
    shot(b, "view-case-matrix.png")


def test_runs_page_and_compare_sorts_the_regression_first(viewer, browser):
    b = browser
    open_page(b, viewer + "/")
    states = b.js("Array.from(document.querySelectorAll('#runs tbody tr'))"
                  ".map(r => r.dataset.run + ':' + r.cells[0].innerText.trim())")
    assert states == ["eval_m:errors", "eval_b:failures", "eval_a:pass"]
    shot(b, "view-runs.png")
    b.js("const s = document.getElementById('target'); s.value = 'beta';"
         "s.dispatchEvent(new Event('change'))")
    assert b.js("document.querySelectorAll('#runs tbody tr').length") == 1
    open_page(b, viewer + "/compare/eval_b")
    first = b.js("document.querySelector('#compare tbody tr').innerText")
    assert first.startswith("mountain") and "-0.900" in first
    assert "PASS" in first and "FAIL" in first
    assert "McNemar: 1 pass→fail" in b.text()
    shot(b, "view-compare.png")


GEO = """\
$schema: agentv-eval-v2
evalcases:
  - id: capital-france
    expected_outcome: Names Paris as the capital.
    input:
      - role: system
        content: You are a geography tutor.
      - role: user
        content: What is the capital of France?
    expected_output: Paris.
  - id: river
    expected_outcome: Names the Seine river.
    input: Which river flows through Paris?
"""
TARGETS = """\
$schema: agentv-targets-v2
targets:
  - name: alpha
    provider: mock
    response: "Paris is the capital; the Seine river"
    trace: [{"type": "tool_call", "tool": "search_web", "input": {"q": "capital"},
             "output": "Paris", "duration_ms": 42}]
  - name: beta
    provider: mock
    response: "The capital is Lyon, river Seine"
"""


def first_artifact_link(stdout: str) -> str:
    """The link of the first artifact of the flow run a run printed (read via the API)."""
    import asyncio

    from tests.flows.artifacts.test_gates_ui import flow_run_id
    run_id = flow_run_id(stdout)

    async def first():
        from prefect.client.orchestration import get_client
        from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId
        async with get_client() as client:
            arts = await client.read_artifacts(artifact_filter=ArtifactFilter(
                flow_run_id=ArtifactFilterFlowRunId(any_=[run_id])))
        return min(arts, key=lambda a: a.created)
    art = asyncio.run(first())
    assert art.key == "agentv-view-geo-alpha-beta", art.key
    return re.search(r"\((http://\S+)\)", art.data).group(1)


def test_a_mock_run_of_two_targets_from_agentv_eval(prefect_api, browser, tmp_path):
    """A real `agentv eval` matrix run (mock targets): its Parquet file read natively, the
    failing case first with the judge's reason, its page with the trace and the Prefect
    flow run's link."""
    (tmp_path / "geo.yaml").write_text(GEO)
    (tmp_path / "targets.yaml").write_text(TARGETS)
    out = tmp_path / "results" / "eval_geo.jsonl"
    out.parent.mkdir()
    env = {"AGENTV_HOME": str(tmp_path / "home")}
    started = run_cli("view", str(out.parent), env=env)  # the viewer over the results folder
    try:
        proc = run_cli("eval", str(tmp_path / "geo.yaml"), "--targets",
                       str(tmp_path / "targets.yaml"), "--target", "alpha", "--target", "beta",
                       "--out", str(out), "--include-trace", env=env)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert out.with_suffix(".parquet").is_file()
        base = re.search(r"agentv view: (http://\S+)/ ", started.stdout).group(1)
        link = re.search(r"  view: (http://\S+)", proc.stdout).group(1)  # the link a run prints
        assert link == f"{base}/run/eval_geo"
        assert first_artifact_link(proc.stdout) == link  # the flow run's first artifact
        b = browser
        open_page(b, link)
        failing = b.js(FIRST_SCREEN)
        assert [f["id"] for f in failing] == ["capital-france"] and failing[0]["bottom"] <= 800
        assert "The capital is Lyon, river Seine" in failing[0]["text"]
        assert "does not mention 'paris'" in failing[0]["text"] or "1 of 2 key terms" in \
            failing[0]["text"]
        assert b.js("document.querySelector('h1').innerText").endswith("— failures")
        shot(b, "view-mock-run.png")
        b.js("document.querySelector('#cases tr.bad .cid a').click()")
        b.wait_for("location.pathname.endsWith('/case/capital-france') && "
                   "document.documentElement.dataset.rendered === '1'")
        text = b.text()
        for needle in ("FAIL · score", "You are a geography tutor.", "Names Paris as the capital.",
                       "Paris.", "eval_geo · alpha", "-Paris is the capital; the Seine river",
                       "+The capital is Lyon, river Seine"):
            assert needle in text, needle
        prefect = b.js("Array.from(document.querySelectorAll('a')).filter("
                       "a => a.innerText === 'flow run').map(a => a.href)")
        assert prefect and prefect[0].startswith(prefect_api.removesuffix("/api"))
    finally:
        run_cli("view", "--stop", env=env)
