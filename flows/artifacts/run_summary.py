"""A run's summary from its sink, without Prefect: the Parquet file closed (+ JUnit), the
statistics, the quality gates, the failures. ``flows.artifacts.publish`` adds the Prefect
artifacts around it; a run stopped before its flow run began (``flows.launch``) has only
this."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentv.tasks.load.gates import Gates
from agentv.tasks.plan.plan import EvalOptions
from agentv.tasks.results.gates import gate_failures
from agentv.tasks.results.junit import write_junit
from agentv.tasks.results.measures import OVERALL
from agentv.tasks.results.sink import RunSink

log = logging.getLogger("agentv.artifacts")


@dataclass
class RunInfo:
    """What the flow knows beyond the records: each eval file's gates, notes to show."""

    suite_gates: list[tuple[str, str, Gates]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # --threshold, --budget-usd
    io_error: str | None = None  # the results file could not be written (the error line)


def _junit(source: Path, out: str, files: dict[str, str]) -> None:
    try:
        files["junit"] = str(write_junit(source, out).resolve())
    except OSError as err:
        log.warning("could not write the JUnit file: %s", err.strerror or err)


def sink_summary(sink: RunSink, options: EvalOptions, info: RunInfo,
                 files: dict[str, str]) -> dict[str, Any]:
    """The Parquet file closed, and the summary the sink accumulated as it took the records."""
    parquet = sink.finish()
    if parquet is not None:
        files["parquet"] = str(parquet.resolve())
    elif sink.parquet is not None and sink.parquet.failed not in (None, "abandoned"):
        failed = f"could not write the Parquet file: {sink.parquet.failed}"
        if info.io_error is None:
            log.warning("%s", failed)
        else:  # the same cause as the run's one error line: a note, not a line before it
            info.notes.append(failed)
    if options.junit:
        _junit(parquet or Path(files["results"]), options.junit, files)
    summary = sink.tally.summary()
    summary["notes"] = list(info.notes)  # (with the Parquet file's failure, if any)
    summary["gate_failures"] = gate_failures(sink.tally, summary, options.gates,
                                             info.suite_gates) + info.failures
    return summary


def add_failures(summary: dict[str, Any], sink: RunSink) -> dict[str, Any]:
    """The counts line ("12 pass · 3 fail · …") and the worst failures, into ``summary``."""
    summary["counts"] = sink.failures.counts(summary.get("mean"))
    summary["failures"] = [f.as_dict() for f in sink.failures.worst()]
    summary["failed_total"] = sink.failures.failed + sink.failures.errored
    return summary


def final_summary(results: str | Path, sink: RunSink | None, options: EvalOptions,
                  info: RunInfo) -> dict[str, Any]:
    """The whole summary of a run that Prefect did not record."""
    files = {"results": str(Path(results).resolve())}
    if sink is not None and sink.broken is not None:
        sink.finish()
        sink = None
    sink = sink or RunSink.of_file(Path(results))
    summary = add_failures(sink_summary(sink, options, info, files), sink)
    summary["files"] = files
    summary["targets"] = per_target(sink.tally.breakdown() if sink.tally.total else [])
    return summary


def per_target(stats: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each target's overall row of the statistics (a matrix run: several targets)."""
    rows = [{k: row[k] for k in ("target", "n", "mean", "pass_rate", "error_rate")}
            for row in stats if row["evaluator"] == OVERALL]
    return rows if len(rows) > 1 else []
