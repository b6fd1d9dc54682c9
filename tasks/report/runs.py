"""The runs a report shows and the per-case matrix across them.

Each results path given to ``agentv report`` is one run (a glob or a list inside one
argument — e.g. the shards of one run — stays one run). Trials of a case within a run stay
trials: the matrix shows their mean score and how many passed. A case is (target, eval_id).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluators.base import verdict_for


@dataclass
class Run:
    label: str
    source: str
    df: Any  # pandas DataFrame of the run's records (tasks.results.frames schema)


def run_labels(sources: list[str]) -> list[str]:
    """Short distinct labels: the file stems, with parent folders added when they clash."""
    stems = [Path(s).stem if "*" not in s else s for s in sources]
    if len(set(stems)) == len(stems):
        return stems
    return [str(Path(s).with_suffix("")) for s in sources]


def load_runs(sources: list[str]) -> list[Run]:
    from tasks.results.frames import load_results
    return [Run(label, source, load_results(source))
            for label, source in zip(run_labels(sources), sources)]


def _case_verdict(scores, errors, passes: int, n: int) -> str:
    if errors == n:
        return "error"
    if n > 1:
        return "pass" if passes == n else ("fail" if passes == 0 else "mixed")
    return verdict_for(float(scores.mean()))


def case_cells(run: Run) -> dict[tuple[str, str], dict[str, Any]]:
    """(target, eval_id) → {score (mean over trials), verdict, n, passes, errors}."""
    df = run.df
    cells: dict[tuple[str, str], dict[str, Any]] = {}
    for (target, eval_id), part in df.groupby([df["target"].fillna(""), "eval_id"], sort=False):
        scores = part["score"].astype(float)
        n = len(part)
        passes = int(part["verdict"].eq("pass").sum())
        errors = int(part["error"].notna().sum())
        cells[(target, eval_id)] = {"score": float(scores.mean()), "n": n, "passes": passes,
                                    "errors": errors,
                                    "verdict": _case_verdict(scores, errors, passes, n)}
    return cells


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
