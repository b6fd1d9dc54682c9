"""The nightly comparison's regressed cases: a table artifact worst Δ first, each row
linking its page in the eval viewer, and the markdown as a table of links (no code block)."""
from __future__ import annotations

from agentv.deployments.regressions import comparison_markdown, regression_rows
from agentv.flows.prefect.viewer import DEFAULT_PORT, ViewPage


def _comparison(regression: bool = True) -> dict:
    matched = [
        {"eval_id": "steady", "score1": 0.9, "score2": 0.9, "delta": 0.0, "outcome": "tie"},
        {"eval_id": "mountain", "score1": 1.0, "score2": 0.1, "delta": -0.9, "outcome": "loss"},
        {"eval_id": "a|b", "score1": 0.8, "score2": 0.5, "delta": -0.3, "outcome": "loss"},
        {"eval_id": "river", "score1": 0.2, "score2": 0.9, "delta": 0.7, "outcome": "win"}]
    return {"matched": matched,
            "summary": {"matched": 4, "wins": 1, "losses": 2, "ties": 1, "meanDelta": -0.125},
            "significance": {"regression": regression, "ci95": [-0.6, 0.2],
                             "mcnemar": {"p_value": 0.5, "pass_to_fail": 1, "fail_to_pass": 1}}}


def test_rows_list_the_losses_worst_first_with_their_viewer_page():
    page = ViewPage("http://v:1/run/eval_b", True, "agentv view /r", "eval_b")
    rows = regression_rows(_comparison(), page)
    assert [r["case"] for r in rows] == ["mountain", "a|b"]
    assert rows[0] == {"case": "mountain", "target": "", "trial": 0, "baseline": 1.0,
                       "this run": 0.1, "Δ": -0.9,
                       "viewer": "http://v:1/run/eval_b/case/mountain?trial=0"}
    assert rows[1]["viewer"] == "http://v:1/run/eval_b/case/a%7Cb?trial=0"


def test_the_markdown_links_each_regressed_case_and_the_compare_page(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTV_HOME", str(tmp_path / "home"))
    results = str(tmp_path / "nightly" / "eval_b.jsonl")
    text = comparison_markdown(_comparison(), str(tmp_path / "eval_a.jsonl"), results)
    assert text.startswith("# Nightly regression check: **REGRESSION**")
    assert "```" not in text
    base = f"http://127.0.0.1:{DEFAULT_PORT}"
    assert f"[this run against its baseline]({base}/compare/eval_b?baseline=eval_a) " \
           f"(start it: `agentv view {tmp_path / 'nightly'}`)" in text
    rows = [line for line in text.splitlines() if line.startswith("| [")]
    assert rows[0] == f"| [mountain]({base}/run/eval_b/case/mountain?trial=0) |  | 0 | " \
                      "1.000 | 0.100 | -0.900 |"
    assert rows[1].startswith("| [a\\|b](")


def test_nightly_runs_sharing_a_file_name_link_the_run_not_a_self_compare(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTV_HOME", str(tmp_path / "home"))
    text = comparison_markdown(_comparison(False), "/n/1/results.jsonl", "/n/2/results.jsonl")
    assert "no significant regression" in text
    assert f"[this run](http://127.0.0.1:{DEFAULT_PORT}/run/results)" in text
    assert "compare/" not in text
