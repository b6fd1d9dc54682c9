"""The runs a report shows and the per-case matrix across them.

Each results path given to ``agentv report`` is one run (a glob or a list inside one
argument — e.g. the shards of one run — stays one run). Trials of a case within a run stay
trials: the matrix shows their mean score and how many passed. A case is (target, eval_id).
A run's statistics are its records' tally (tasks/results/tally.py), as for a run's summary.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluators.base import verdict_for
from tasks.results.tally import Tally


@dataclass
class Run:
    label: str
    source: str
    rows: list[dict[str, Any]]  # the run's records (rows of the tasks.results.frames schema)
    tally: Tally


def run_labels(sources: list[str]) -> list[str]:
    """Short distinct labels: the file stems, with parent folders added when they clash."""
    stems = [Path(s).stem if "*" not in s else s for s in sources]
    if len(set(stems)) == len(stems):
        return stems
    return [str(Path(s).with_suffix("")) for s in sources]


def load_run(label: str, source: str) -> Run:
    from tasks.results.frames import load_table
    rows = load_table(source).to_pylist()
    tally = Tally()
    for row in rows:
        tally.add(row)
    return Run(label, source, rows, tally)


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


def matrix(runs: list[Run]) -> list[dict[str, Any]]:
    """One row per case: each run's cell, the delta last − first, and whether its pass/fail
    status flips between consecutive runs (``improved`` / ``regressed`` / ``flipped``)."""
    per_run = [case_cells(r) for r in runs]
    keys = list(dict.fromkeys(k for cells in per_run for k in cells))
    rows = []
    for key in sorted(keys, key=lambda k: (k[1], k[0])):
        cells = [cells.get(key) for cells in per_run]
        present = [c for c in cells if c is not None]
        delta = (cells[-1]["score"] - cells[0]["score"]
                 if len(runs) > 1 and cells[0] and cells[-1] else None)
        passed = [c["verdict"] == "pass" for c in present]
        flips = sum(a != b for a, b in zip(passed, passed[1:]))
        change = ""
        if flips:
            change = ("improved" if passed[-1] and not passed[0] else
                      "regressed" if passed[0] and not passed[-1] else "flipped")
        rows.append({"target": key[0], "eval_id": key[1], "cells": cells, "delta": delta,
                     "change": change})
    return rows
