"""A hostile suite cannot rewrite the console or the report (control characters and terminal
escapes in case ids, names and errors are shown escaped), and ``--resume FILE`` on a file not
written yet starts a fresh run into it (as AgentV 4.x's ``--resume`` without its index)."""
from __future__ import annotations

import json

import pytest

from agentv.flows.cli.argv import expand_optional_values
from agentv.flows.cli.console import format_problems
from agentv.providers.printable import html_text, printable
from agentv.tasks.plan.resume import resolve_resume_path
from agentv.tasks.results.summary_text import format_summary

HOSTILE = "c1\x1b[2K\rPASS all good\nfake\u202e"
RAW = ("\x1b", "\r", "\u202e")


def test_printable_escapes_controls_escapes_and_bidi_overrides():
    assert printable(HOSTILE) == "c1\\x1b[2K\\x0dPASS all good\\x0afake\\u202e"
    assert printable("plain é 日本") == "plain é 日本"
    assert html_text("a\tb\nc\x1b<d>") == "a\tb\nc\\x1b&lt;d&gt;"  # a page keeps its lines


def test_summary_and_errors_show_case_text_escaped():
    summary = {"total": 1, "errors": 1, "mean": 0.0, "median": 0.0, "min": 0.0, "max": 0.0,
               "std": None, "histogram": [1, 0, 0, 0, 0], "top": [(HOSTILE, 0.0)],
               "bottom": [(HOSTILE, 0.0)], "pass_rate": 0.0, "ci95": None,
               "gate_failures": [f"case {HOSTILE} failed"]}
    lines = [format_summary(summary),
             *format_problems("ERRORS", [{"file": "s.yaml", "eval_id": HOSTILE,
                                          "target": "t\x1b]0;x\x07", "error": "bad\x1b[1A"}])]
    text = "\n".join(lines)
    assert not any(c in text for c in RAW + ("\x07",))
    assert "top: c1\\x1b[2K\\x0dPASS all good\\x0afake\\u202e" in text
    assert "s.yaml:c1\\x1b[2K" in text and "bad\\x1b[1A" in text


def test_resume_takes_a_file_not_written_yet(tmp_path):
    new = str(tmp_path / "new.jsonl")
    assert expand_optional_values(["eval", "--resume", new, "s.yaml"]) == \
        ["eval", "--resume", new, "s.yaml"]
    assert str(resolve_resume_path(new, "jsonl")) == new


@pytest.mark.slow
def test_hostile_ids_stay_escaped_and_resume_starts_fresh(cli, tmp_path):
    (tmp_path / "targets.yaml").write_text(
        "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: mock\n")
    suite = tmp_path / "s.yaml"
    suite.write_text("$schema: agentv-eval-v2\nevalcases:\n"
                     f"  - id: {json.dumps(HOSTILE)}\n    expected_outcome: hi\n"
                     "    input_messages: hi\n    evaluators:\n"
                     "      - {type: contains, value: zzz, name: \"ev\\e[31m\"}\n")
    out = tmp_path / "new.jsonl"
    proc = cli("eval", str(suite), "--resume", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"--resume: {out} does not exist yet; starting a fresh run into it" in proc.stderr
    assert not any(c in proc.stdout + proc.stderr for c in RAW)
    assert "c1\\x1b[2K\\x0dPASS all good\\x0afake" in proc.stdout
    assert [json.loads(line)["eval_id"] for line in out.read_text().splitlines()] == [HOSTILE]
    report = tmp_path / "r.html"
    assert cli("report", str(out), "-o", str(report), cwd=tmp_path).returncode == 0
    page = report.read_text()
    assert not any(c in page for c in RAW)  # the report app embeds it as escaped JSON data
    assert "c1\\x1b[2K\\x0dPASS all good" in page or "c1\\u001b[2K\\rPASS all good" in page
