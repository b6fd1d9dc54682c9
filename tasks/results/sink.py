"""What the results writer feeds every record it writes to, so nothing waits for the end
of the run: the Parquet file, written in row groups as records arrive (by pyarrow, on a
writer thread: tasks/results/parquet_file.py); the statistics (``tasks.results.tally``); and
the case table rows; with ``--output`` the run folder (``tasks.results.run_folder``); with
``--otel-file`` the OTLP JSON file of the run's spans (``tasks.results.run_folder_otel``).
``finish`` closes the Parquet file (written under a temporary name, renamed when complete, so
a reader never sees half a file) and returns its path.
``RunSink.of_file`` builds the same from a results file that is already written (a merged
or sharded run). A Parquet write that fails (disk full, a value the schema cannot hold)
drops the Parquet file only; the results file and the statistics are unaffected.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from agentv.tasks.load.redact import redact
from agentv.tasks.results.case_rows import CASE_ROW_KEYS, case_row
from agentv.tasks.results.failures import Failures
from agentv.tasks.results.frames import iter_records, parquet_path_for, record_to_row
from agentv.tasks.results.parquet_file import ParquetStream
from agentv.tasks.results.run_folder import RunFolder
from agentv.tasks.results.run_folder_files import traced
from agentv.tasks.results.run_folder_otel import OtelFile
from agentv.tasks.results.tally import Tally

log = logging.getLogger("agentv.sink")


_HITS, _MISSES, _REASONING = (CASE_ROW_KEYS.index(k) for k in
                            ("hits", "misses", "reasoning"))


def _compact(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A case row kept until its table or page is published: reasoning equal to the row's
    hits or misses text (one evaluator's) shares it."""
    values = list(row)
    for same in (_MISSES, _HITS):
        if values[_REASONING] == values[same]:
            values[_REASONING] = values[same]
    return tuple(values)


def _redacted(value: Any) -> Any:
    """A case row's value with secrets masked (each evaluator's column name and text too)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, tuple):
        return tuple(_redacted(v) for v in value)
    return value


class RunSink:
    """Each written record → one Parquet row, the tally, a case table row."""

    def __init__(self, parquet: Path | None, folder: RunFolder | None = None,
                 otel: OtelFile | None = None) -> None:
        self.parquet = ParquetStream(parquet) if parquet is not None else None
        self.folder = folder  # --output's run folder (AgentV 4.x's layout)
        self.otel = otel  # --otel-file: this run's records' spans
        self.tally = Tally()
        self.failures = Failures()  # worst first, with the reason each failed
        self.cases: dict[tuple[str, str], list[tuple[Any, ...]]] = {}  # compact case rows
        self._finished: Path | None = None
        self.closed = False
        self.broken: str | None = None  # why the streamed statistics cannot be trusted

    def linked(self, record: dict[str, Any]) -> dict[str, Any]:
        """The record as the results file gets it (with its run-folder paths)."""
        return self.folder.linked(record) if self.folder is not None else record

    def add(self, record: dict[str, Any], scrubbed: bool = True) -> None:
        """One record as written (``scrubbed``: the results writer scrubbed it)."""
        if self.folder is not None:
            try:
                self.folder.add(record)
            except OSError as err:  # the results file has the record; the folder stops
                log.warning("run folder %s not written further: %s", self.folder.root, err)
                self.folder = None
        if self.otel is not None:
            seen = traced(record)
            self.otel.add(seen["record"], seen["messages"], seen["outputs"])
        if self.broken is None:
            try:
                self._add(record, scrubbed)
            except Exception as err:  # noqa: BLE001 - the summary is then computed from the
                self.broken = f"{type(err).__name__}: {err}"  # results file at the end
                log.warning("streaming summary stopped (%s); summarizing from the results "
                            "file at the end", self.broken)

    def _add(self, record: dict[str, Any], scrubbed: bool = False) -> None:
        row = record_to_row(record, str if scrubbed else redact)
        results = record.get("evaluator_results")
        results = results if isinstance(results, list) else None  # parsed once, used twice
        if self.parquet is not None:
            self.parquet.add(row)
        self.tally.add(row, results)
        self.failures.add(row, results, redact)
        key = row["case_key"]
        file = key.split("::")[0] if isinstance(key, str) else ""
        values = case_row(row, results).values()
        self.cases.setdefault((file, row["target"] or ""), []).append(_compact(tuple(
            values if scrubbed else (_redacted(v) for v in values))))

    @classmethod
    def of_file(cls, results: Path) -> "RunSink":
        """The sink of a results file already written: its Parquet file (beside it), its
        statistics and case rows. A record that is not a result record raises
        ``ConfigError`` naming its line."""
        sink = cls(parquet_path_for(results))
        try:
            for record in iter_records(results):
                sink._add(record)
        except BaseException:
            if sink.parquet is not None:
                sink.parquet.abort()  # no half-written Parquet file left behind
            raise
        return sink

    def add_file(self, results: Path) -> None:
        """The records already in a results file (``--resume`` continues it)."""
        otel, self.otel = self.otel, None  # spans: this run's records only
        try:
            for record in iter_records(results):
                self.add(record, scrubbed=False)
        except Exception as err:  # noqa: BLE001 - as in add
            self.broken = f"{type(err).__name__}: {err}"
        finally:
            self.otel = otel

    def describe(self, metadata: dict[str, str]) -> None:
        """Key-value metadata for the Parquet file's footer (tasks/results/run_meta.py)."""
        if self.parquet is not None:
            self.parquet.metadata.update(metadata)

    def finish(self) -> Path | None:
        """Close the Parquet file; its path, or None when it could not be written."""
        if not self.closed:
            self.closed = True
            self._finished = self.parquet.close() if self.parquet is not None else None
            if self.folder is not None:
                self.folder.finish()
            if self.otel is not None:
                try:
                    self.otel.finish()
                except OSError as err:
                    log.warning("--otel-file %s not written: %s", self.otel.path, err)
        return self._finished
