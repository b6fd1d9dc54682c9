"""`agentv report` of two runs in headless Chromium (Debian package), from the file alone:
it opens on the last run against the one before with the regression first; one click gives
the case in full with the baseline's answer and diff; the run and runs pages route by #/…."""
from __future__ import annotations

import pytest

from agentv.tasks.report import write_report
from tests.browser import Browser, chromium
from tests.tasks.view.records import geo_run
from tests.tasks.view.test_browser_view import shot

pytestmark = pytest.mark.slow  # drives Chromium


def rendered(b: Browser, hash_: str) -> None:
    b.wait_for(f"location.hash === {hash_!r} && "
               "document.documentElement.dataset.rendered === '1' && "
               "document.querySelector('main h1')", timeout=30)


def test_report_compare_case_and_run_pages(tmp_path):
    exe = chromium()
    a = geo_run(tmp_path / "eval_a.jsonl", ("alpha", "beta"), stamp="2026-11-28T09:00:00.000Z")
    b_ = geo_run(tmp_path / "eval_b.jsonl", ("alpha", "beta"), regress="capital-italy")
    page = write_report([str(a), str(b_)], tmp_path / "report.html")
    with Browser(exe) as b:
        b.call("Emulation.setDeviceMetricsOverride", width=1280, height=800,
               deviceScaleFactor=1, mobile=False)
        b.open(page.as_uri())
        rendered(b, "#/compare/eval_b/")
        rows = b.js("Array.from(document.querySelectorAll('#compare tbody tr'))"
                    ".map(r => r.cells[0].innerText + ' ' + r.cells[1].innerText)")
        assert rows[:2] == ["capital-italy alpha", "capital-italy beta"]
        shot(b, "report-compare.png")
        b.js("document.querySelector('#compare tbody tr .cid a').click()")
        rendered(b, "#/case/eval_b/capital-italy/0/alpha")
        text = b.text()
        for needle in ("FAIL · score 0.100", "eval_a · alpha (baseline)", "-Rome.",
                       "+I do not know.", "eval_b · beta"):
            assert needle in text, needle
        b.js("location.hash = '#/run/eval_b'")
        rendered(b, "#/run/eval_b")
        assert b.js("document.querySelectorAll('#cases tbody tr.bad, #cases tbody tr.err')"
                    ".length") == 3  # capital-italy, capital-france (beta), river (beta)
        shot(b, "report-run.png")
        b.js("location.hash = '#/'")
        rendered(b, "#/")
        assert b.js("document.querySelectorAll('#runs tbody tr').length") == 2
