"""A run's Parquet file, written by pyarrow's ``ParquetWriter`` one row group at a time as
records arrive, on a writer thread of its own (never on the event loop that runs the cases).

Columns are ZSTD-compressed; each row group carries column statistics (min, max, null
count) for the columns a reader filters on — ids, target, trial, score, verdict, latency,
tokens, cost — so pandas, duckdb or polars can skip row groups; the long texts and JSON
columns carry none (their min/max are of no use and would only grow the footer).
pyarrow (~50 MB) is imported on the writer thread when the first record arrives (the run's
first result is out by then), never on the start-up path, and not at the end of a short run
either (where it would lengthen the tail).

Rows reach pyarrow as JSON lines read by its JSON reader against the schema: pyarrow's
conversion of Python objects (``Table.from_pylist``, ``pa.array``) imports pandas (~100 MB)
whenever it is installed, and a run never needs pandas.

The file is written under ``<name>.tmp`` and renamed when complete, so a reader never sees
half a file. A write that fails (disk full, a value the schema cannot hold) drops the
Parquet file only: ``failed`` says why, the caller's results and statistics are unaffected.
"""
from __future__ import annotations

import json
import logging
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

from agentv.tasks.results.schema import (
    JSON_COLUMNS,
    LIST_COLUMNS,
    STORED_COLUMNS,
    TEXT_COLUMNS,
    arrow_schema,
)

ROWS_PER_GROUP = 1000  # rows held before they are written as one row group
COMPRESSION = "zstd"
STATISTICS = [c for c in STORED_COLUMNS  # the file's own columns; no stats on lists
              if c not in (*TEXT_COLUMNS, *JSON_COLUMNS, *LIST_COLUMNS, "extra", "evaluators")]
MAX_QUEUED = 4  # row groups waiting for the writer thread before ``add`` waits for it
log = logging.getLogger("agentv.sink")
_row_json = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps's, made once


class ParquetStream:
    """``add`` rows; every ``rows_per_group`` of them become one row group, written on the
    writer thread; ``close`` writes the footer and renames the file into place."""

    def __init__(self, path: Path, rows_per_group: int = ROWS_PER_GROUP) -> None:
        self.path = path
        self.tmp = path.with_name(path.name + ".tmp")
        self.rows_per_group = rows_per_group
        self.pending: list[dict[str, Any]] = []
        self.failed: str | None = None
        self.rows = 0
        self._writer: Any = None  # pyarrow.parquet.ParquetWriter, on the writer thread only
        self._thread: ThreadPoolExecutor | None = None
        self._queued: deque[Future] = deque()
        self.metadata: dict[str, str] = {}  # key-value metadata for the footer (run_meta.py)

    def add(self, row: dict[str, Any]) -> None:
        if self.failed is None:
            if self._thread is None:  # the first record: pyarrow loads while the run goes on
                self._submit(self._start)
            self.pending.append(row)
            if len(self.pending) >= self.rows_per_group:
                self.flush()

    def flush(self) -> None:
        """Hand the pending rows to the writer thread as one row group."""
        if self.failed is None and self.pending:
            rows, self.pending = self.pending, []
            self._submit(self._write_group, rows)

    def close(self) -> Path | None:
        """Write what is pending and the footer (no row at all: a file with the schema); the
        complete file replaces any older one. Its path, or None when it could not be written."""
        self.flush()
        self._submit(self._finish)
        self._stop_thread()
        return None if self.failed is not None else self.path

    def abort(self) -> None:
        """Give the file up (its source was unreadable): nothing half-written is left."""
        self.pending = []
        self.failed = self.failed or "abandoned"
        self._stop_thread()
        self._drop()

    def _stop_thread(self) -> None:
        while self._queued:
            self._queued.popleft().result()
        if self._thread is not None:
            self._thread.shutdown()
            self._thread = None

    def _submit(self, job: Callable[..., None], *args: Any) -> None:
        if self._thread is None:
            self._thread = ThreadPoolExecutor(1, thread_name_prefix="agentv-parquet")
        self._queued.append(self._thread.submit(job, *args))
        while self._queued and (self._queued[0].done() or len(self._queued) > MAX_QUEUED):
            self._queued.popleft().result()  # the writer thread is behind: wait for it

    # ------------------------------------------------------------ on the writer thread
    def _start(self) -> None:
        try:
            self._open()
        except Exception as err:  # noqa: BLE001 - as in _write_group
            self._fail(err)

    def _open(self) -> Any:
        if self._writer is None:
            import pyarrow.parquet as pq
            self._writer = pq.ParquetWriter(self.tmp, arrow_schema(), compression=COMPRESSION,
                                            write_statistics=STATISTICS)
        return self._writer

    def _write_group(self, rows: list[dict[str, Any]]) -> None:
        if self.failed is not None:
            return
        try:
            writer = self._open()
            writer.write_table(_table(rows, writer.schema), row_group_size=len(rows))
            self.rows += len(rows)
        except Exception as err:  # noqa: BLE001 - disk full, or a value the schema cannot
            self._fail(err)       # hold: the Parquet file is dropped, never the run

    def _finish(self) -> None:
        if self.failed is not None:
            return
        try:
            writer = self._open()
            if self.metadata:
                writer.add_key_value_metadata(dict(self.metadata))
            writer.close()
            self._writer = None
            self.tmp.replace(self.path)
        except Exception as err:  # noqa: BLE001 - as in _write_group
            self._fail(err)

    def _fail(self, err: Exception) -> None:
        self.failed = str(getattr(err, "strerror", None) or err)
        # said by the run's summary, not here: a run that fails (the disk full) says its one
        # error line, with no warning from this thread before it
        log.debug("could not write the Parquet file: %s", self.failed)
        self._drop()

    def _drop(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            try:
                writer.close()
            except Exception:  # noqa: BLE001 - the file is removed anyway
                pass
        self.tmp.unlink(missing_ok=True)


def _table(rows: list[dict[str, Any]], schema: Any) -> Any:
    """The rows as a pyarrow Table of ``schema`` (a value of the wrong type raises)."""
    import pyarrow as pa
    import pyarrow.json as pj
    data = "".join(_row_json(row) + "\n" for row in rows).encode("utf-8")
    return pj.read_json(pa.BufferReader(data),
                        read_options=pj.ReadOptions(use_threads=False, block_size=len(data) + 1),
                        parse_options=pj.ParseOptions(explicit_schema=schema,
                                                      unexpected_field_behavior="ignore"))
