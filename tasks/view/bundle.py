"""Every viewer page of a few runs in one self-contained HTML file (``agentv report``): the
runs, each run's case table, each run against the run given before it (its baseline), and
the cases in full — every record up to ``MAX_CASES``, then errors and failures first. The
page code is the viewer's (tasks/view/page.py); pages are addressed by ``#/…``."""
from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from agentv.tasks.view.case_context import case_contexts
from agentv.tasks.view.case_data import case_data
from agentv.tasks.view.compare_data import compare_data
from agentv.tasks.view.index import summary_of
from agentv.tasks.view.page import render
from agentv.tasks.view.pages import context_key
from agentv.tasks.view.run_data import RANK, run_data

MAX_CASES = 3000
SEP = "\x01"


def run_labels(sources: list[str]) -> list[str]:
    """Short distinct labels: the file stems, with parent folders added when they clash."""
    stems = [Path(s).stem if "*" not in s else s for s in sources]
    if len(set(stems)) == len(stems):
        return stems
    return [str(Path(s).with_suffix("")) for s in sources]


def case_key(row: dict[str, Any]) -> str:
    return SEP.join(str(v) for v in (row.get("eval_id"), row.get("trial") or 0,
                                     row.get("target") or ""))


def _cases(runs: list[tuple[dict[str, Any], list[dict[str, Any]]]]) -> dict[str, dict]:
    """Each run's records in full (at most MAX_CASES over all runs: errors and failures
    first), with their answers on the other targets and on the run before."""
    chosen = [(i, row) for i, (_, rows) in enumerate(runs) for row in rows]
    if len(chosen) > MAX_CASES:
        chosen = sorted(chosen, key=lambda x: RANK.get(x[1].get("verdict") or "", 1))[:MAX_CASES]
    contexts = case_contexts({context_key(r.get("case_key")) for _, r in chosen})
    groups: list[dict[tuple, list[dict[str, Any]]]] = []
    for _, rows in runs:
        group: dict[tuple, list[dict[str, Any]]] = {}
        for row in rows:
            group.setdefault((row.get("eval_id"), row.get("trial") or 0), []).append(row)
        groups.append(group)
    out: dict[str, dict[str, Any]] = {run["id"]: {} for run, _ in runs}
    for i, row in chosen:
        run, key = runs[i][0], (row.get("eval_id"), row.get("trial") or 0)
        target = row.get("target") or ""
        before = next((r for r in groups[i - 1].get(key, []) if (r.get("target") or "") == target),
                      None) if i else None
        out[run["id"]][case_key(row)] = case_data(
            run, groups[i][key], target, contexts.get(context_key(row.get("case_key"))),
            (runs[i - 1][0]["id"], before) if before else None)
    return out


def bundle_data(sources: list[str]) -> dict[str, Any]:
    from agentv.tasks.results.frames import load_table
    runs = []
    for label, source in zip(run_labels(sources), sources):
        rows = load_table(source).to_pylist()
        runs.append((summary_of(label, source, rows), rows))
    pages: dict[str, Any] = {"run": {}, "compare": {}, "cases": _cases(runs)}
    for i, (run, rows) in enumerate(runs):
        base, base_rows = runs[i - 1] if i else (None, None)
        pages["run"][run["id"]] = run_data(run, rows, base, base_rows)
        if base is not None:
            data = compare_data(run, rows, base, base_rows or [])
            pages["compare"][run["id"]] = {"": data, base["id"]: data}
    last = quote(runs[-1][0]["id"], safe="")
    start = f"#/compare/{last}/" if len(runs) > 1 else f"#/run/{last}"
    return {"mode": "bundle", "runs": [r for r, _ in runs], "pages": pages, "start": start}


def render_bundle(sources: list[str]) -> str:
    data = bundle_data(sources)
    return render("agentv report: " + " vs ".join(r["id"] for r in data["runs"]), data)
