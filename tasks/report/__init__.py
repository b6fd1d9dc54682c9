"""``agentv report RESULTS...``: one self-contained HTML file (inline CSS, SVG charts and a
few lines of inline script; nothing loaded from the network).

One results file is one run; several are a comparison. Sections: a summary per run,
plots (mean score and pass rate per run, mean per evaluator and per target, histogram),
the per-case matrix (runs × cases, Δ last − first, pass/fail flips highlighted, sortable
and filterable), per-target and per-evaluator tables, trials agreement (trials of one
run stay trials), and a drill-down for every record: conversation, expected outcome,
answer, each evaluator's hits, misses and reasoning, trace and tool calls, latency,
tokens and cost. The expected outcome is read from the eval file named by the record's
``case_key`` when it can still be read. The page passes through ``redact``.
"""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from agentv.providers.printable import html_text as escape
from agentv.tasks.load.redact import redact
from agentv.tasks.report.case_context import case_contexts
from agentv.tasks.report.html import CSS, SCRIPT
from agentv.tasks.report.matrix_view import matrix_section
from agentv.tasks.report.runs import Run, load_runs
from agentv.tasks.report.sections import (
    breakdown_tables,
    cases_section,
    plots,
    runs_summary,
    summaries_of,
    trials_section,
)

__all__ = ["render_report", "write_report", "default_report_path"]


def _header(runs: list[Run]) -> str:
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    title = " vs ".join(r.label for r in runs)
    sources = "".join(f"<li><b>{escape(r.label)}</b>: {escape(r.source)} "
                      f"({len(r.rows)} record(s))</li>" for r in runs)
    kind = "comparison of {} runs".format(len(runs)) if len(runs) > 1 else "one run"
    return (f"<h1>agentv report: {escape(title)}</h1><p>{kind} · generated {generated}</p>"
            f"<ul class='sources'>{sources}</ul>")


def render_report(runs: list[Run]) -> str:
    summaries, per_eval = summaries_of(runs)
    keys = list(dict.fromkeys(r["case_key"] for run in runs for r in run.rows
                              if r.get("case_key") is not None))
    body = [_header(runs), "<h2>Summary</h2>", runs_summary(runs, summaries),
            "<h2>Plots</h2>", plots(runs, summaries, per_eval),
            "<h2>Cases × runs</h2>", matrix_section(runs),
            "<h2>Breakdowns</h2>", breakdown_tables(runs, per_eval),
            "<h2>Trials agreement</h2>", trials_section(runs),
            "<h2>Cases</h2>", cases_section(runs, case_contexts(keys))]
    title = " vs ".join(r.label for r in runs)
    page = ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>agentv report: {escape(title)}</title><style>{CSS}</style>"
            f"</head><body>{''.join(body)}<script>{SCRIPT}</script></body></html>\n")
    return redact(page)


def default_report_path(results: str | list[str]) -> Path:
    first = Path(results[0] if isinstance(results, (list, tuple)) else results)
    return first.with_suffix(".html")


def write_report(results: str | list[str], out: str | Path | None = None) -> Path:
    """Each path in ``results`` is one run (a single path: a one-run report)."""
    sources = [results] if isinstance(results, (str, Path)) else list(results)
    runs = load_runs([str(s) for s in sources])
    path = Path(out) if out else default_report_path(sources)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_report(runs), encoding="utf-8")
    return path
