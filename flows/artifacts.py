"""What a run publishes when its cases are done: the Parquet file (and JUnit XML on
request) next to the results, the summary, the quality gates' verdict, and Prefect
artifacts on the flow run (created concurrently), each under a stable key
(flows/naming.py) so the UI's Artifacts page keeps their history across runs. A run's
sink (tasks/sink.py) has built the Parquet file and the statistics while the records were
written; without one (a merged file) they are computed with pandas from the results:

* ``agentv-cases-<suite>-<target>``: every case with score, verdict, hits, misses,
  reasoning and errors (flows/case_table.py);
* ``agentv-stats-…``: per target × evaluator n, mean, median, std, pass rate, error
  rate, p50/p95 latency, tokens, cost;
* ``agentv-summary-…``: markdown summary, score histogram, trials, gate failures;
* ``agentv-results-file-…`` (and parquet, junit): links to the files.
"""
from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prefect.artifacts import (
    acreate_link_artifact,
    acreate_markdown_artifact,
    acreate_table_artifact,
)

from flows.case_table import CASE_TABLE_COLUMNS, case_tables, collected_tables, suite_of
from flows.naming import artifact_key
from tasks.gates import Gates, failed_gates, gate_failures, options_gates
from tasks.junit import JUNIT_COLUMNS, write_junit
from tasks.plan import EvalOptions
from tasks.redact import redact
from tasks.results import load_results, write_parquet
from tasks.sink import RunSink
from tasks.stats import SUMMARY_COLUMNS, breakdown, summarize
from tasks.summary_md import summary_markdown

log = logging.getLogger("agentv.artifacts")
FRAME_COLUMNS = list(dict.fromkeys(SUMMARY_COLUMNS + JUNIT_COLUMNS + CASE_TABLE_COLUMNS))


@dataclass
class RunInfo:
    """What the flow knows beyond the records: each eval file's gates, notes to show."""

    suite_gates: list[tuple[str, str, Gates]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def redact_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: redact(v) if isinstance(v, str) else v for k, v in r.items()} for r in rows]


@dataclass
class Computed:
    """What the artifacts show, however it was computed."""

    summary: dict[str, Any]
    tables: list[tuple[str, str, list[dict[str, Any]]]]
    breakdown: list[dict[str, Any]]
    suites: list[str]
    targets: list[str]


def _from_sink(sink: RunSink, options: EvalOptions, info: RunInfo,
               files: dict[str, str]) -> Computed:
    """The statistics the sink accumulated while the records were written (no pandas)."""
    parquet = sink.finish()
    if parquet is not None:
        files["parquet"] = str(parquet.resolve())
    if options.junit:
        _junit(parquet or Path(files["results"]), options.junit, files)
    tally = sink.tally
    summary = tally.summary()
    summary["notes"] = list(info.notes)
    summary["gate_failures"] = failed_gates(summary, options_gates(options), info.suite_gates,
                                            tally.suite_summary)
    tables = collected_tables(sink.cases)
    suites = sorted({suite_of(f"{f}::") if f else "unknown" for f, _ in sink.cases}) or ["none"]
    targets = sorted({t for _, t in sink.cases}) or ["none"]
    return Computed(summary, tables, tally.breakdown() if tally.total else [], suites, targets)


def _junit(source: Path, out: str, files: dict[str, str]) -> None:
    try:
        files["junit"] = str(write_junit(load_results(source, columns=JUNIT_COLUMNS), out)
                             .resolve())
    except OSError as err:
        log.warning("could not write the JUnit file: %s", err.strerror or err)


def _from_file(results: Path, options: EvalOptions, info: RunInfo,
               files: dict[str, str]) -> Computed:
    """Parquet written from the results file, the summary computed with pandas."""
    try:
        parquet = write_parquet(results)
        files["parquet"] = str(parquet.resolve())
    except OSError as err:  # disk full: summarize what the results file holds
        log.warning("could not write the Parquet file: %s", err.strerror or err)
        parquet = results
    df = load_results(parquet, columns=FRAME_COLUMNS)
    if options.junit:
        _junit(parquet, options.junit, files)
    summary = summarize(df)
    summary["notes"] = list(info.notes)
    summary["gate_failures"] = gate_failures(df, summary, options_gates(options),
                                             info.suite_gates)
    suites = sorted(set(df["case_key"].map(suite_of))) if len(df) else ["none"]
    targets = sorted(set(df["target"].fillna(""))) if len(df) else ["none"]
    return Computed(summary, case_tables(df) if len(df) else [],
                    breakdown(df) if len(df) else [], suites, targets)


async def publish_results(results: str | Path, options: EvalOptions, wall_s: float,
                          info: RunInfo | None = None, sink: RunSink | None = None
                          ) -> dict[str, Any]:
    """Write Parquet (+ JUnit), summarize, check the gates, publish the artifacts (all at
    once). With the run's ``sink`` the Parquet file and the statistics were built as the
    records were written; without it they are computed from the results file.
    ``summary["gate_failures"]`` lists the failed gates (empty: passed)."""
    info = info or RunInfo()
    files = {"results": str(Path(results).resolve())}
    done = (_from_sink(sink, options, info, files) if sink is not None
            else _from_file(Path(results), options, info, files))
    summary, suites, targets = done.summary, done.suites, done.targets
    creating = [acreate_table_artifact(key=key, table=redact_rows(rows), description=text)
                for key, text, rows in done.tables]
    if done.tables:
        creating.append(acreate_table_artifact(
            key=artifact_key("stats", suites, targets), table=done.breakdown,
            description="agentv: per target × evaluator statistics"))
    creating.append(acreate_markdown_artifact(
        key=artifact_key("summary", suites, targets),
        markdown=summary_markdown(summary, wall_s, files), description="agentv run summary"))
    creating += [acreate_link_artifact(key=artifact_key(f"{kind}-file", suites, targets),
                                       link=Path(path).as_uri(),
                                       link_text=f"{kind}: {Path(path).name}",
                                       description=f"agentv {kind} file")
                 for kind, path in files.items()]
    await asyncio.gather(*creating)
    summary["files"] = files
    return summary
