"""``agentv report RESULTS...``: the viewer (tasks/view/) as one self-contained HTML file —
the same page code as ``agentv view``, every page's data embedded as JSON, nothing loaded
from the network — so CI can attach it.

One results file is one run (its trials stay trials): the report opens on its case table.
Several are a history: each run is compared with the one given before it, and the report
opens on the last run against its baseline. Every case is there in full (at most 3,000
records: errors and failures first). The page passes through ``redact``.
"""
from __future__ import annotations

from pathlib import Path

from agentv.tasks.view.bundle import render_bundle

__all__ = ["write_report", "default_report_path"]


def default_report_path(results: str | list[str]) -> Path:
    first = Path(results[0] if isinstance(results, (list, tuple)) else results)
    return first.with_suffix(".html")


def write_report(results: str | list[str], out: str | Path | None = None) -> Path:
    """Each path in ``results`` is one run (a single path: a one-run report)."""
    sources = [results] if isinstance(results, (str, Path)) else list(results)
    page = render_bundle([str(s) for s in sources])
    path = Path(out) if out else default_report_path(sources)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path
