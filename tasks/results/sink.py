"""What the results writer feeds every record it writes to, so nothing waits for the end
of the run: the Parquet file, written in row groups as records arrive; the summary
statistics (``tasks.results.tally``); and the case table rows. ``finish`` closes the Parquet file
(written under a temporary name, renamed when complete, so a reader never sees half a
file) and returns its path.

The Parquet file is written by ``tasks.results.parquet_writer`` (pure Python: a run never imports
pyarrow, ~50 MB of memory). A Parquet write that fails (disk full, a value the schema
cannot hold) drops the Parquet file only; the results file and the statistics are
unaffected.
"""
from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import IO, Any

from tasks.results.case_rows import CASE_ROW_KEYS, case_row
from tasks.results.parquet_writer import ParquetWriter
from tasks.load.redact import redact
from tasks.results.frames import iter_records, parquet_writer, record_to_row
from tasks.results.tally import Tally

ROWS_PER_GROUP = 500
log = logging.getLogger("agentv.sink")


class ParquetStream:
    """A Parquet file written ``rows_per_group`` rows at a time."""

    def __init__(self, path: Path, rows_per_group: int = ROWS_PER_GROUP) -> None:
        self.path = path
        self.tmp = path.with_name(path.name + ".tmp")
        self.rows_per_group = rows_per_group
        self.pending: list[dict[str, Any]] = []
        self._file: IO[bytes] | None = None
        self._writer: ParquetWriter | None = None
        self.failed: str | None = None
        self.rows = 0

    def add(self, row: dict[str, Any]) -> None:
        if self.failed is None:
            self.pending.append(row)
            if len(self.pending) >= self.rows_per_group:
                self.flush()

    def flush(self) -> None:
        if self.failed is not None or not self.pending:
            return
        try:
            self._open().write_rows(self.pending)
            self.rows += len(self.pending)
        except Exception as err:  # noqa: BLE001 - disk full, or a value the schema cannot
            self._fail(err)       # hold: the Parquet file is dropped, never the run
        self.pending = []

    def _open(self) -> ParquetWriter:
        if self._writer is None:
            self._file = open(self.tmp, "wb")
            self._writer = parquet_writer(self._file)
        return self._writer

    def _fail(self, err: Exception) -> None:
        self.failed = str(getattr(err, "strerror", None) or err)
        log.warning("could not write the Parquet file: %s", self.failed)
        self._close_file()
        self.tmp.unlink(missing_ok=True)

    def _close_file(self) -> None:
        file, self._file, self._writer = self._file, None, None
        if file is not None:
            try:
                file.close()
            except OSError:
                pass

    def close(self) -> Path | None:
        """Write what is pending and the footer; the complete file replaces any older one."""
        self.flush()
        if self.failed is not None:
            return None
        try:
            self._open().close()  # no record: an empty file with the schema
            assert self._file is not None
            self._file.close()
            self._file = self._writer = None
            self.tmp.replace(self.path)
        except OSError as err:
            self._fail(err)
            return None
        return self.path


_ID, _HITS, _MISSES, _REASONING = (CASE_ROW_KEYS.index(k) for k in
                                   ("eval_id", "hits", "misses", "reasoning"))


def _compact(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A case row kept until the end of the run: its id is the plan's string (interned),
    reasoning equal to the row's hits or misses text (one evaluator's) shares it."""
    values = list(row)
    if isinstance(values[_ID], str):
        values[_ID] = sys.intern(values[_ID])
    for same in (_MISSES, _HITS):
        if values[_REASONING] == values[same]:
            values[_REASONING] = values[same]
    return tuple(values)


class RunSink:
    """Each written record → one Parquet row, the tally, a case table row."""

    def __init__(self, parquet: Path | None) -> None:
        self.parquet = ParquetStream(parquet) if parquet is not None else None
        self.tally = Tally()
        self.cases: dict[tuple[str, str], list[tuple[Any, ...]]] = {}  # compact case rows
        self._finished: Path | None = None
        self.closed = False
        self.broken: str | None = None  # why the streamed statistics cannot be trusted

    def add(self, record: dict[str, Any]) -> None:
        if self.broken is None:
            try:
                self._add(record)
            except Exception as err:  # noqa: BLE001 - the summary is then computed from the
                self.broken = f"{type(err).__name__}: {err}"  # results file at the end
                log.warning("streaming summary stopped (%s); summarizing from the results "
                            "file at the end", self.broken)

    def _add(self, record: dict[str, Any]) -> None:
        row = record_to_row(record)
        results = record.get("evaluator_results")
        results = results if isinstance(results, list) else None  # parsed once, used twice
        if self.parquet is not None:
            self.parquet.add(row)
        self.tally.add(row, results)
        key = row["case_key"]
        file = key.split("::")[0] if isinstance(key, str) else ""
        self.cases.setdefault((file, row["target"] or ""), []).append(_compact(tuple(
            redact(v) if isinstance(v, str) else v for v in case_row(row, results).values())))

    def add_file(self, results: Path) -> None:
        """The records already in a results file (``--resume`` continues it)."""
        try:
            for record in iter_records(results):
                self.add(record)
        except Exception as err:  # noqa: BLE001 - as in add
            self.broken = f"{type(err).__name__}: {err}"

    def finish(self) -> Path | None:
        """Close the Parquet file; its path, or None when it could not be written."""
        if not self.closed:
            self.closed = True
            self._finished = self.parquet.close() if self.parquet is not None else None
        return self._finished
