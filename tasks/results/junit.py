"""JUnit XML for CI systems: one ``<testcase>`` per eval case (per trial when a case ran
several times), one ``<testsuite>`` per dataset × target.

A case whose verdict is ``fail`` (score < 0.6) gets a ``<failure>``; a case that could
not run (provider error) gets an ``<error>``; ``pass`` and ``borderline`` pass. Every case
carries its score and verdict in ``<system-out>``. The file passes through ``redact``.
"""
from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from agentv.tasks.load.redact import redact
from agentv.tasks.results.measures import number

JUNIT_COLUMNS = ["eval_id", "dataset", "target", "trial", "score", "verdict", "error",
                 "latency_ms", "reasoning", "misses", "candidate_answer"]


def _case_name(row: dict[str, Any], with_trial: bool) -> str:
    return f"{row['eval_id']} [trial {row['trial']}]" if with_trial else str(row["eval_id"])


def _misses(row: dict[str, Any]) -> list[str]:
    raw = row.get("misses")
    if isinstance(raw, list):  # a results row: a list of strings
        return [str(m) for m in raw]
    try:
        return [str(m) for m in json.loads(raw or "[]")]
    except (TypeError, ValueError):
        return []


def _seconds(latency_ms: Any) -> float:
    latency = number(latency_ms)
    return 0.0 if latency != latency else latency / 1000  # missing or NaN: 0


def _testcase(suite: ET.Element, row: dict[str, Any], classname: str, with_trial: bool) -> str:
    case = ET.SubElement(suite, "testcase", name=_case_name(row, with_trial),
                         classname=classname, time=f"{_seconds(row.get('latency_ms')):.3f}")
    verdict, score = row.get("verdict"), number(row.get("score"))
    if verdict == "error":
        error = str(row.get("error"))
        ET.SubElement(case, "error", message=error, type="error").text = error
    elif verdict == "fail":
        detail = "\n".join([str(row.get("reasoning") or "")]
                           + [f"miss: {m}" for m in _misses(row)])
        ET.SubElement(case, "failure", message=f"score {score:.3f}: verdict fail",
                      type="fail").text = detail.strip()
    ET.SubElement(case, "system-out").text = f"score: {score:.3f}\nverdict: {verdict}"
    return str(verdict)


def _suites(rows: list[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """(dataset, target) → its rows by eval_id and trial, in (dataset, target) order."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row.get("dataset") or "", row.get("target") or ""), []).append(row)
    return {key: sorted(groups[key], key=lambda r: (str(r["eval_id"]), r.get("trial") or 0))
            for key in sorted(groups)}


def junit_xml(rows: list[dict[str, Any]]) -> str:
    """``rows``: records as rows of the results schema (``load_table(...).to_pylist()``)."""
    root = ET.Element("testsuites", name="agentv")
    with_trial = any((row.get("trial") or 0) > 0 for row in rows)
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for (dataset, target), ordered in _suites(rows).items():
        name = f"{dataset or 'agentv'} [{target}]" if target else dataset or "agentv"
        suite = ET.SubElement(root, "testsuite", name=name)
        verdicts = [_testcase(suite, row, name, with_trial) for row in ordered]
        counts = {"tests": len(verdicts), "failures": verdicts.count("fail"),
                  "errors": verdicts.count("error")}
        seconds = math.fsum(_seconds(row.get("latency_ms")) for row in ordered)
        suite.attrib.update({k: str(v) for k, v in counts.items()}, time=f"{seconds:.3f}",
                            skipped="0")
        totals = {k: totals[k] + counts[k] for k in totals}
    root.attrib.update({k: str(v) for k, v in totals.items()})
    ET.indent(root)
    return redact(ET.tostring(root, encoding="unicode", xml_declaration=True)) + "\n"


def write_junit(results: str | Path, path: str | Path) -> Path:
    """JUnit XML of a results file (JSONL, YAML or Parquet) at ``path``."""
    from agentv.tasks.results.frames import load_table
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = load_table(results, columns=JUNIT_COLUMNS).to_pylist()
    path.write_text(junit_xml(rows), encoding="utf-8")
    return path
