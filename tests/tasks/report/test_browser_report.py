"""`agentv report` of two runs on two targets in headless Chromium (Debian package): cases
matched by id across the targets as `compare` matches them, a flip highlighted, "only
changed", a failed case's drill-down (whole conversation, expected outcome, reference,
evaluators, diff against the other target's answer, trace), sorting. Screenshots are kept
under .agentv/screenshots/ (CI artifacts)."""
from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from agentv.tasks.results.run_meta import FLOW_RUN_ID, read_run_metadata
from tests.browser import Browser, chromium, click_text
from tests.conftest import run_cli

pytestmark = pytest.mark.slow  # end-to-end (docs/development.md: the fast subset)

TRACE = [{"type": "tool_call", "tool": "search_web", "input": {"q": "capital of France"},
          "output": "Paris is the capital", "duration_ms": 42},
         {"type": "llm_call", "model": "mock-1", "input_tokens": 12, "output_tokens": 7}]


@pytest.fixture(scope="module")
def runs(prefect_api, tmp_path_factory) -> tuple[Path, Path, Path]:
    """One run of the suite per target (alpha, beta): both tests read them."""
    tmp_path = tmp_path_factory.mktemp("report-runs")
    return (*two_runs(tmp_path), tmp_path)


def two_runs(tmp_path: Path) -> tuple[Path, Path]:
    suite = tmp_path / "geo.yaml"
    suite.write_text(textwrap.dedent("""\
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
          - id: capital-italy
            expected_outcome: Names Rome as the capital.
            input: What is the capital of Italy?
          - id: river
            expected_outcome: Names the Seine river.
            input: Which river flows through Paris?
        """))
    outs = []
    for name, target, answer in (
            ("baseline", "alpha", "Paris is the capital; Rome is the capital; the Seine river"),
            ("candidate", "beta", "The capital is Lyon, river Seine; Rome is the capital")):
        targets = tmp_path / f"{name}-targets.yaml"
        targets.write_text(f"$schema: agentv-targets-v2\ntargets:\n  - name: {target}\n"
                           "    provider: mock\n" + f"    response: {json.dumps(answer)}\n"
                           + f"    trace: {json.dumps(TRACE)}\n")
        out = tmp_path / f"{name}.jsonl"
        proc = run_cli("eval", str(suite), "--targets", str(targets), "--target", target,
                       "--out", str(out), "--include-trace")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        outs.append(out)
    return outs[0], outs[1]


def matrix_column(b: Browser, index: int) -> list[str]:
    return b.js(f"""Array.from(document.querySelectorAll('#matrix tbody tr'))
        .map(r => r.cells[{index}].innerText.trim())""")


def test_report_of_two_targets_matrix_drill_down_diff(runs, tmp_path, prefect_api):
    exe = chromium()
    baseline, candidate, _ = runs
    page = tmp_path / "compare.html"
    proc = run_cli("report", str(baseline), str(candidate), "-o", str(page))
    assert proc.returncode == 0, proc.stderr
    html = page.read_text()
    assert not re.search(r"src\s*=\s*['\"]?(https?:)?//", html)  # self-contained
    links = re.findall(r"href\s*=\s*['\"]?((?:https?:)?//[^'\" >]+)", html)
    flow_runs = [read_run_metadata(r)[FLOW_RUN_ID] for r in (baseline, candidate)]
    assert [link.rsplit("/", 1)[-1] for link in links] == flow_runs  # only the flow runs'
    assert all(link.startswith(prefect_api.removesuffix("/api")) for link in links)
    assert "NA&gt;" not in html and "nan" not in re.sub(r"<[^>]+>", "", html).split()
    with Browser(exe) as b:
        b.open(page.as_uri())
        b.wait_for("document.documentElement.dataset.rendered === '1'")
        assert b.js("document.querySelector('h1').innerText") == \
            "agentv report: baseline vs candidate"
        header = b.js("Array.from(document.querySelectorAll('#matrix th')).map(h => h.innerText)")
        assert b.js("document.getElementById('run-links').innerText") == \
            "baseline: Prefect flow run · candidate: Prefect flow run"
        assert [h.rstrip(" ↕") for h in header] == [  # one row per case across both targets
            "case", "baseline · alpha", "candidate · beta", "Δ last − first", "change"]
        assert matrix_column(b, 0) == ["capital-france", "capital-italy", "river"]
        flipped = b.js("Array.from(document.querySelectorAll('#matrix tr.flip'))"
                       ".map(r => r.cells[0].innerText + ':' + r.cells[4].innerText)")
        assert flipped == ["capital-france:regressed"]
        assert "1 of 3 case(s) change pass/fail" in b.text()
        b.js("document.getElementById('flip-count').scrollIntoView()")
        b.screenshot("report-matrix.png")

        click_text(b, "Δ last − first")  # ascending: the regression first
        deltas = [float(d) for d in matrix_column(b, 3)]
        assert matrix_column(b, 0)[0] == "capital-france" and deltas == sorted(deltas)
        click_text(b, "Δ last − first")
        assert [float(d) for d in matrix_column(b, 3)] == sorted(deltas, reverse=True)

        b.js("const f = document.getElementById('only-flips'); f.checked = true;"
             "f.dispatchEvent(new Event('change'))")
        assert matrix_column(b, 0) == ["capital-france"]
        assert "1 of 3 case(s) · page 1 of 1" in b.text()

        b.js("document.querySelector('#matrix tr.flip td:nth-child(3) a').click()")
        b.wait_for("document.getElementById('case-2-capital-france-beta-0').open")
        case = b.js("document.getElementById('case-2-capital-france-beta-0').innerText")
        for text in ("Conversation", "system", "You are a geography tutor.",
                     "What is the capital of France?", "Expected outcome",
                     "Names Paris as the capital.", "Reference answer", "Paris.", "fail",
                     "The capital is Lyon", "does not mention", "Offline heuristic judge",
                     "Answer beside another run", "baseline · alpha", "candidate · beta",
                     "-Paris is the capital; Rome is the capital; the Seine river",
                     "+The capital is Lyon, river Seine; Rome is the capital",
                     "Trace and tool calls", "search_web", "mock-1", "latency:", "cost:"):
            assert text in case, (text, case)
        b.screenshot("report-drill-down.png")


def test_one_run_with_trials_keeps_trials(runs, tmp_path):
    folder = runs[2]
    trials = tmp_path / "trials.jsonl"
    proc = run_cli("eval", str(folder / "geo.yaml"), "--targets",
                   str(folder / "baseline-targets.yaml"), "--target", "alpha",
                   "--out", str(trials), "--trials", "2")
    assert proc.returncode == 0, proc.stderr
    page = tmp_path / "t.html"
    assert run_cli("report", str(trials), "-o", str(page)).returncode == 0
    html = page.read_text()
    assert "agentv report: trials</h1>" in html and "one run" in html
    assert ',"pass",2,2,' in html and "Δ last − first" not in html  # the matrix's cells
    assert html.count("class='case'") == 6  # every trial has its drill-down
