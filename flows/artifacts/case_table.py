"""The case table artifact: one row per case with what a reviewer needs to judge it in the
Prefect UI — score, verdict, hits, misses, short reasoning, and the case's or its
evaluators' errors (tasks/results/case_rows.py). One table per eval file × target, keyed so its
history is kept; built from the rows a sink collected as it took the records
(tasks/results/sink.py)."""
from __future__ import annotations

from typing import Any

from agentv.flows.prefect.naming import artifact_key, suite_name
from agentv.tasks.results.case_rows import table_rows


def suite_of(case_key: Any) -> str:
    return suite_name(str(case_key).split("::")[0]) if isinstance(case_key, str) else "unknown"


def _table(suite: str, target: str, rows: list[dict[str, Any]]) -> tuple[str, str, list]:
    return (artifact_key("cases", [suite], [target]),
            f"agentv cases: {suite} × {target} ({len(rows)} case(s))", rows)


def collected_tables(collected: dict[tuple[str, str], list[tuple[Any, ...]]]
                     ) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """(artifact key, description, rows) per eval file × target, from the rows a sink
    collected (``RunSink.cases``: (file, target) → rows as tuples of ``CASE_ROW_KEYS``),
    each table by eval_id and trial."""
    merged: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
    for (file, target), rows in collected.items():
        merged.setdefault((suite_of(f"{file}::") if file else "unknown", target), []).extend(rows)
    out = []
    for (suite, target) in sorted(merged):
        ordered = sorted(merged[(suite, target)], key=lambda r: (str(r[0]), r[1]))
        out.append(_table(suite, target, table_rows(ordered)))
    return out
