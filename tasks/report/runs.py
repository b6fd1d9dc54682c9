"""The runs a report shows and the per-case matrix across them.

Each results path given to ``agentv report`` is one run (a glob or a list inside one
argument — e.g. the shards of one run — stays one run). Trials of a case within a run stay
trials: the matrix shows their mean score and how many passed. A case is (target, eval_id).
A run's statistics are its records' tally (tasks/results/tally.py), as for a run's summary.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentv.evaluators.base import verdict_for
from agentv.tasks.results.tally import Tally


@dataclass
class Run:
    label: str
    source: str
    rows: list[dict[str, Any]]  # the run's records (rows of the tasks.results.frames schema)
    tally: Tally
    meta: dict[str, str] = field(default_factory=dict)  # the flow run (run_meta.py)


def run_labels(sources: list[str]) -> list[str]:
    """Short distinct labels: the file stems, with parent folders added when they clash."""
    stems = [Path(s).stem if "*" not in s else s for s in sources]
    if len(set(stems)) == len(stems):
        return stems
    return [str(Path(s).with_suffix("")) for s in sources]


def load_run(label: str, source: str) -> Run:
    from agentv.tasks.results.frames import load_table
    from agentv.tasks.results.run_meta import read_run_metadata
    rows = load_table(source).to_pylist()
    tally = Tally()
    for row in rows:
        tally.add(row)
    return Run(label, source, rows, tally, read_run_metadata(source))


def load_runs(sources: list[str]) -> list[Run]:
    return [load_run(label, source) for label, source in zip(run_labels(sources), sources)]


def _case_verdict(score: float, errors: int, passes: int, n: int) -> str:
    if errors == n:
        return "error"
    if n > 1:
        return "pass" if passes == n else ("fail" if passes == 0 else "mixed")
    return verdict_for(score)


def case_cells(run: Run) -> dict[tuple[str, str], dict[str, Any]]:
    """(target, eval_id) → {score (mean over trials), verdict, n, passes, errors}."""
    return {key: {**cell, "verdict": _case_verdict(cell["score"], cell["errors"],
                                                   cell["passes"], cell["n"])}
            for key, cell in run.tally.cells().items()}


def matches_by_target(runs: list[Run]) -> bool:
    """Whether a case is (eval_id, target) rather than eval_id alone: the key ``agentv
    compare`` matches two files by (tasks.results.compare.match_keys), for every pair of runs."""
    from agentv.tasks.results.compare import match_keys
    return len(runs) > 1 and all("target" in match_keys(a.rows, b.rows)
                                 for a, b in zip(runs, runs[1:]))


@dataclass
class Column:
    run_index: int
    label: str  # the run's label, with the target when a case spans targets
    target: str | None  # None: the target is part of the row's key


def _columns(runs: list[Run], per_run: list[dict], by_target: bool) -> list[Column]:
    if by_target or len(runs) == 1:
        return [Column(i, r.label, None) for i, r in enumerate(runs)]
    return [Column(i, f"{run.label} · {target}" if target else run.label, target)
            for i, run in enumerate(runs)
            for target in sorted({t for t, _ in per_run[i]})]


def _change(cells: list[dict[str, Any] | None]) -> str:
    passed = [c["verdict"] == "pass" for c in cells if c is not None]
    if not any(a != b for a, b in zip(passed, passed[1:])):
        return ""
    return ("improved" if passed[-1] and not passed[0] else
            "regressed" if passed[0] and not passed[-1] else "flipped")


def matrix(runs: list[Run]) -> tuple[list[Column], list[dict[str, Any]]]:
    """The columns (run × target) and one row per case matched as ``compare`` matches: each
    column's cell, the delta last − first, and whether pass/fail flips from column to column
    (``improved`` / ``regressed`` / ``flipped``). The same case on two targets is one row
    unless every run holds the same several targets."""
    per_run = [{(t or "", e): c for (t, e), c in case_cells(r).items()} for r in runs]
    by_target = matches_by_target(runs) or len(runs) == 1
    columns = _columns(runs, per_run, by_target)
    keys = sorted({(e, t if by_target else "") for cells in per_run for t, e in cells})
    rows = []
    for eval_id, target in keys:
        cells = [per_run[c.run_index].get((target if c.target is None else c.target, eval_id))
                 for c in columns]
        delta = (cells[-1]["score"] - cells[0]["score"]
                 if len(columns) > 1 and cells[0] and cells[-1] else None)
        rows.append({"target": target, "eval_id": eval_id, "cells": cells, "delta": delta,
                     "change": _change(cells)})
    return columns, rows
