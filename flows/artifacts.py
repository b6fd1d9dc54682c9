"""What a run publishes when its cases are done: the Parquet file (and JUnit XML on
request) next to the results, the summary computed with pandas from that Parquet, the
quality gates' verdict, and Prefect artifacts on the flow run, each under a stable key
(flows/naming.py) so the UI's Artifacts page keeps their history across runs:

* ``agentv-cases-<suite>-<target>``: every case with score, verdict, hits, misses,
  reasoning and errors (flows/case_table.py);
* ``agentv-stats-…``: per target × evaluator n, mean, median, std, pass rate, error
  rate, p50/p95 latency, tokens, cost;
* ``agentv-summary-…``: markdown summary, score histogram, trials, gate failures;
* ``agentv-results-file-…`` (and parquet, junit): links to the files.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prefect.artifacts import (
    acreate_link_artifact,
    acreate_markdown_artifact,
    acreate_table_artifact,
)

from flows.case_table import CASE_TABLE_COLUMNS, case_tables, suite_of
from flows.naming import artifact_key
from tasks.gates import Gates, gate_failures, options_gates
from tasks.junit import JUNIT_COLUMNS, write_junit
from tasks.plan import EvalOptions
from tasks.redact import redact
from tasks.results import load_results, write_parquet
from tasks.stats import SUMMARY_COLUMNS, breakdown, summarize
from tasks.summary_md import summary_markdown

log = logging.getLogger("agentv.artifacts")
FRAME_COLUMNS = list(dict.fromkeys(SUMMARY_COLUMNS + JUNIT_COLUMNS + CASE_TABLE_COLUMNS))


@dataclass
class RunInfo:
    """What the flow knows beyond the records: each eval file's gates, notes to show."""

    suite_gates: list[tuple[str, str, Gates]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


async def _publish_tables(df, suites: list[str], targets: list[str]) -> None:
    for key, description, rows in case_tables(df):
        await acreate_table_artifact(key=key, table=redact_rows(rows), description=description)
    await acreate_table_artifact(key=artifact_key("stats", suites, targets), table=breakdown(df),
                                 description="agentv: per target × evaluator statistics")


def redact_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: redact(v) if isinstance(v, str) else v for k, v in r.items()} for r in rows]


async def publish_results(results: str | Path, options: EvalOptions, wall_s: float,
                          info: RunInfo | None = None) -> dict[str, Any]:
    """Write Parquet (+ JUnit), summarize from it with pandas, check the gates, publish
    the artifacts. ``summary["gate_failures"]`` lists the failed gates (empty: passed)."""
    info = info or RunInfo()
    files = {"results": str(Path(results).resolve())}
    try:
        parquet = write_parquet(results)
        files["parquet"] = str(parquet.resolve())
    except OSError as err:  # disk full: summarize what the results file holds
        log.warning("could not write the Parquet file: %s", err.strerror or err)
        parquet = Path(results)
    df = load_results(parquet, columns=FRAME_COLUMNS)
    if options.junit:
        try:
            files["junit"] = str(write_junit(df, options.junit).resolve())
        except OSError as err:
            log.warning("could not write the JUnit file: %s", err.strerror or err)
    summary = summarize(df)
    summary["notes"] = list(info.notes)
    summary["gate_failures"] = gate_failures(df, summary, options_gates(options),
                                             info.suite_gates)
    suites = sorted(set(df["case_key"].map(suite_of))) if len(df) else ["none"]
    targets = sorted(set(df["target"].fillna(""))) if len(df) else ["none"]
    if len(df):
        await _publish_tables(df, suites, targets)
    await acreate_markdown_artifact(key=artifact_key("summary", suites, targets),
                                    markdown=summary_markdown(summary, wall_s, files),
                                    description="agentv run summary")
    for kind, path in files.items():
        await acreate_link_artifact(key=artifact_key(f"{kind}-file", suites, targets),
                                    link=Path(path).as_uri(),
                                    link_text=f"{kind}: {Path(path).name}",
                                    description=f"agentv {kind} file")
    summary["files"] = files
    return summary
