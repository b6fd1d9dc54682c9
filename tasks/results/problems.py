"""Evaluator errors and warnings inside a record (nested composite members included).

A broken evaluator (missing script, crash, an unparseable judge reply) is an error of the
run's configuration, not a low score: ``evaluator_problems`` finds them so the summary
counts them (``errors: cases N, evaluators M``), the console lists them in ERRORS as
``file:case:evaluator`` and ``--fail-on-error`` fails on them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterator


@dataclass(frozen=True)
class Problem:
    evaluator: str
    message: str
    is_error: bool


def _walk(results: list[dict[str, Any]], prefix: str = "") -> Iterator[Problem]:
    for r in results or []:
        if not isinstance(r, dict):
            continue
        name = f"{prefix}{r.get('name') or r.get('type') or 'evaluator'}"
        if r.get("error"):
            yield Problem(name, str(r["error"]), True)
        for w in r.get("warnings") or []:
            yield Problem(name, str(w), False)
        yield from _walk(r.get("evaluator_results") or [], f"{name}/")


def evaluator_problems(results: Any) -> list[Problem]:
    """Problems in a record's ``evaluator_results`` (a list, or its JSON text)."""
    if isinstance(results, str):
        try:
            results = json.loads(results)
        except ValueError:
            return []
    return list(_walk(results if isinstance(results, list) else []))


def evaluator_error_count(results: Any) -> int:
    return sum(1 for p in evaluator_problems(results) if p.is_error)


def case_file(record: dict[str, Any]) -> str:
    """The eval file a record came from (its ``case_key`` is ``file::id::target::trial``)."""
    key = record.get("case_key")
    return str(key).split("::")[0] if isinstance(key, str) and "::" in key else ""
