"""JUnit XML for CI systems: one ``<testcase>`` per eval case (per trial when a case ran
several times), one ``<testsuite>`` per dataset × target.

A case whose verdict is ``fail`` (score < 0.6) gets a ``<failure>``; a case that could
not run (provider error) gets an ``<error>``; ``pass`` and ``borderline`` pass. Every case
carries its score and verdict in ``<system-out>``. The file passes through ``redact``.
"""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from tasks.load.redact import redact

JUNIT_COLUMNS = ["eval_id", "dataset", "target", "trial", "score", "verdict", "error",
                 "latency_ms", "reasoning", "misses", "candidate_answer"]


def _case_name(row: Any, with_trial: bool) -> str:
    return f"{row.eval_id} [trial {row.trial}]" if with_trial else str(row.eval_id)


def _misses(row: Any) -> list[str]:
    try:
        return [str(m) for m in json.loads(row.misses or "[]")]
    except (TypeError, ValueError):
        return []


def _testcase(suite: ET.Element, row: Any, classname: str, with_trial: bool) -> str:
    latency = row.latency_ms
    seconds = 0.0 if latency is None or latency != latency else latency / 1000  # NaN-safe
    case = ET.SubElement(suite, "testcase", name=_case_name(row, with_trial),
                         classname=classname, time=f"{seconds:.3f}")
    if row.verdict == "error":
        ET.SubElement(case, "error", message=str(row.error), type="error").text = str(row.error)
    elif row.verdict == "fail":
        detail = "\n".join([str(row.reasoning or "")] + [f"miss: {m}" for m in _misses(row)])
        ET.SubElement(case, "failure", message=f"score {row.score:.3f}: verdict fail",
                      type="fail").text = detail.strip()
    ET.SubElement(case, "system-out").text = f"score: {row.score:.3f}\nverdict: {row.verdict}"
    return row.verdict


def junit_xml(df) -> str:
    root = ET.Element("testsuites", name="agentv")
    with_trial = bool((df["trial"] > 0).any())
    data = df.assign(dataset=df["dataset"].fillna(""), target=df["target"].fillna(""))
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for (dataset, target), group in data.groupby(["dataset", "target"], sort=True):
        name = f"{dataset or 'agentv'} [{target}]" if target else dataset or "agentv"
        suite = ET.SubElement(root, "testsuite", name=name)
        ordered = group.sort_values(["eval_id", "trial"], kind="stable")
        verdicts = [_testcase(suite, row, name, with_trial) for row in ordered.itertuples()]
        counts = {"tests": len(verdicts), "failures": verdicts.count("fail"),
                  "errors": verdicts.count("error")}
        seconds = float(ordered["latency_ms"].fillna(0).sum()) / 1000
        suite.attrib.update({k: str(v) for k, v in counts.items()}, time=f"{seconds:.3f}",
                            skipped="0")
        totals = {k: totals[k] + counts[k] for k in totals}
    root.attrib.update({k: str(v) for k, v in totals.items()})
    ET.indent(root)
    return redact(ET.tostring(root, encoding="unicode", xml_declaration=True)) + "\n"


def write_junit(df, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(junit_xml(df[JUNIT_COLUMNS]), encoding="utf-8")
    return path
