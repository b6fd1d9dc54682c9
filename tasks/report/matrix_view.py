"""The report's cases × runs matrix: its rows as JSON (``json.dumps``, inside a
``<script type="application/json">``) and the table shell that ``matrix.js`` pages, filters
and sorts in the browser — 200 rows drawn at a time, so 20,000 cases stay quick."""
from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

from agentv.providers.printable import html_text as escape
from agentv.providers.printable import printable
from agentv.tasks.report.cases import case_anchor
from agentv.tasks.report.runs import Column, Run, matrix


def _cell(cell: dict[str, Any] | None, column: Column, eval_id: str, target: str) -> list | None:
    if cell is None:
        return None
    anchor = case_anchor(column.run_index, eval_id,
                         target if column.target is None else column.target, 0)
    return [round(cell["score"], 6), cell["verdict"], cell["n"], cell["passes"], anchor]


def matrix_data(runs: list[Run]) -> tuple[list[Column], dict[str, Any]]:
    columns, rows = matrix(runs)
    payload = [[printable(r["eval_id"]), _shown(r["target"]),
                [_cell(c, col, r["eval_id"], r["target"]) for c, col in zip(r["cells"], columns)],
                None if r["delta"] is None else round(r["delta"], 6), r["change"]]
               for r in rows]
    return columns, {"rows": payload, "compare": len(columns) > 1,
                     "show_target": any(r["target"] for r in rows)}


def _shown(target: str | None) -> str | None:
    return None if target is None else printable(target)


def script_json(value: Any) -> str:
    """JSON safe inside a ``<script>`` element (no ``</script>``, no ``<!--``)."""
    return json.dumps(value, separators=(",", ":")).replace("<", "\\u003c")


def matrix_section(runs: list[Run]) -> str:
    columns, data = matrix_data(runs)
    flips = sum(1 for r in data["rows"] if r[4])
    head = "<th data-key='case'>case</th>"
    head += "<th data-key='target'>target</th>" if data["show_target"] else ""
    head += "".join(f"<th data-key='{i}'>{escape(c.label)}</th>" for i, c in enumerate(columns))
    if data["compare"]:
        head += "<th data-key='delta'>Δ last − first</th><th data-key='change'>change</th>"
    note = (f"<p id='flip-count'>{flips} of {len(data['rows'])} case(s) change pass/fail "
            "between runs (highlighted).</p>" if data["compare"] else "")
    changed = ("<label><input type='checkbox' id='only-flips'> only changed</label>"
               if data["compare"] else "")
    return (f"{note}<p><input class='matrix-filter' id='filter-matrix' type='search' "
            f"placeholder='filter cases (id, target, verdict)…'>{changed}</p>"
            f"<table id='matrix'><thead><tr>{head}</tr></thead><tbody></tbody></table>"
            "<p id='matrix-pager'><button class='prev'>‹ previous</button> "
            "<span class='where'></span> <button class='next'>next ›</button></p>"
            f"<script type='application/json' id='matrix-data'>{script_json(data)}</script>"
            f"<script>{files('agentv.tasks.report').joinpath('matrix.js').read_text()}</script>")
