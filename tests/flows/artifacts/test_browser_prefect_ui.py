"""The Prefect UI as users open it: the flow-run link `agentv eval` prints, loaded in
headless Chromium (Debian package) against the server agentv started. Screenshots are
kept under .agentv/screenshots/ (CI artifacts)."""
from __future__ import annotations

import json
import re
import urllib.request

import pytest

from tests.browser import Browser, chromium, click_text
from tests.conftest import EXAMPLE

pytestmark = pytest.mark.slow  # end-to-end (docs/development.md: the fast subset)

CONNECTION_ERRORS = ("Can't connect", "Unable to connect", "Failed to fetch")


def show_task_run_artifacts(b: Browser) -> None:
    """Scroll the Artifacts tab's "Task runs" list to mid-screen, as a user scrolls to it.
    The UI draws each list in a virtual scroller that renders only what is in view; the
    run graph and the "Flow run" list (the viewer link, the run's first artifact) put the
    task runs' artifacts (the summarize stage's: cases, failures, each failed case) below
    the fold of a 1000-pixel window, so they are not in the page until scrolled to."""
    b.wait_for_text("Task runs")
    b.js("Array.from(document.querySelectorAll('body *')).filter(e => e.innerText && "
         "e.innerText.trim() === 'Task runs').pop().scrollIntoView({block: 'center'})")


def test_server_ui_settings_point_at_its_own_port(prefect_api):
    base = prefect_api.removesuffix("/api")
    with urllib.request.urlopen(f"{base}/ui-settings", timeout=10) as resp:
        assert json.loads(resp.read())["api_url"] == prefect_api


def test_server_start_prints_a_working_ui_url(cli):
    proc = cli("server", "start")
    assert proc.returncode == 0, proc.stderr
    ui = re.search(r"Prefect UI:\s+(\S+)", proc.stdout).group(1)
    with urllib.request.urlopen(f"{ui}/ui-settings", timeout=10) as resp:
        assert json.loads(resp.read())["api_url"] == f"{ui}/api"


def test_printed_flow_run_link_shows_the_run_its_stages_and_case_table(cli, tmp_path):
    exe = chromium()
    proc = cli("eval", str(EXAMPLE / "evals" / "example.test.yaml"), "--out",
               str(tmp_path / "r.jsonl"), "--fail-under", "0.8")
    assert proc.returncode == 1, proc.stderr
    url = re.search(r"prefect flow run: (\S+)", proc.stdout).group(1)
    with Browser(exe) as b:
        b.open(url)
        b.wait_for_text("example × default", "Failed", timeout=90)
        text = b.text()
        assert not any(e in text for e in CONNECTION_ERRORS), text[:2000]
        assert "suite:example" in text and "target:default" in text
        b.screenshot("prefect-flow-run.png")
        click_text(b, "Task Runs")
        b.wait_for_text("load-and-expand", "preflight-targets", "run-cases: example.test.yaml",
                        "summarize")
        b.screenshot("prefect-task-runs.png")
        click_text(b, "Artifacts")
        show_task_run_artifacts(b)
        b.wait_for_text("agentv-cases-example-default", "agentv-summary-example-default")
        click_text(b, "agentv-cases-example-default")
        b.wait_for_text("does not mention 'range'", "multiturn-debugging",
                        "review-javascript-with-guidelines")
        text = b.text()
        assert "Offline heuristic judge" in text
        assert not any(e in text for e in CONNECTION_ERRORS)
        b.screenshot("prefect-case-table.png")
        ui = url.split("/flow-runs/")[0]
        b.open(ui + "/artifacts")  # keyed artifacts are listed on the history page
        b.wait_for_text("Artifacts", "agentv-")
        assert not re.search(r"(?<!\d)0 Artifacts", b.text())
        b.screenshot("prefect-artifacts.png")
        # each key's own page holds its history (the list is paged when tests share a server)
        for key in ("agentv-cases-example-default", "agentv-summary-example-default"):
            b.open(f"{ui}/artifacts/key/{key}")
            b.wait_for_text(key, "example × default")
        b.screenshot("prefect-artifact-history.png")


def test_a_failed_case_is_two_clicks_from_the_printed_link(cli, tmp_path):
    """Printed link → Artifacts → the failed case: its input, answer, expected outcome and
    each evaluator's verdict and reasoning. The failures list links the same page."""
    from tests.flows.artifacts.test_failures_ui import suite
    exe = chromium()
    proc = cli("eval", str(suite(tmp_path)), "--targets", str(tmp_path / "targets.yaml"),
               "--out", str(tmp_path / "r.jsonl"))
    assert proc.returncode == 0, proc.stderr
    url = re.search(r"prefect flow run: (\S+)", proc.stdout).group(1)
    with Browser(exe) as b:
        b.open(url)
        b.wait_for_text("mixed × default", timeout=90)
        click_text(b, "Artifacts")  # click 1
        show_task_run_artifacts(b)
        b.wait_for_text("agentv-view-mixed-default", "agentv-cases-mixed-default")
        text = b.text()  # the viewer's link is the flow run's first artifact, on top
        assert text.index("agentv-view-mixed-default") < text.index("agentv-cases-mixed-default")
        b.screenshot("prefect-run-artifacts.png")
        click_text(b, "agentv-failures-mixed-default", exact=False)  # click 2: the failures
        b.wait_for_text("case details")
        link = b.js("Array.from(document.querySelectorAll('a')).find("
                    "a => a.innerText.trim() === 'case details').href")
        b.open(link)  # the worst case's page, keyed and titled in full
        b.wait_for_text("Expected outcome", "Evaluators", "case-3", "judge crashed")
        b.screenshot("prefect-failed-case.png")
        b.open(url)  # the viewer's page of the run: the run's first artifact
        b.wait_for_text("mixed × default", timeout=90)
        click_text(b, "Artifacts")
        b.wait_for_text("agentv-view-mixed-default")
        click_text(b, "agentv-view-mixed-default")
        b.wait_for_text("agentv view: r")
        viewer = b.js("Array.from(document.querySelectorAll('a')).filter("
                      "a => a.innerText.startsWith('agentv view: r')).map(a => a.href)")
        assert viewer and viewer[0].endswith("/run/r"), viewer
        b.screenshot("prefect-viewer-link.png")
