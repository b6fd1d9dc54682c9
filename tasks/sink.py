"""What the results writer feeds every record it writes to, so nothing waits for the end
of the run: the Parquet file, written in row groups as records arrive; the summary
statistics (``tasks.tally``); and the case table rows. ``finish`` closes the Parquet file
(written under a temporary name, renamed when complete, so a reader never sees half a
file) and returns its path.

pyarrow's import (~0.2 s CPU) starts on a background thread when the sink is made, so the
first row group does not stall the event loop. A Parquet write that fails (disk full)
drops the Parquet file only; the results file and the statistics are unaffected.
"""
from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import Any

from tasks.case_rows import case_row
from tasks.redact import redact
from tasks.results import arrow_schema, iter_records, record_to_row
from tasks.tally import Tally

ROWS_PER_GROUP = 500
log = logging.getLogger("agentv.sink")


def _import_pyarrow() -> None:
    try:
        import pyarrow.json  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except Exception:  # noqa: BLE001 - the real import reports it
        pass


def _table(rows: list[dict[str, Any]], schema: Any) -> Any:
    """Rows → an Arrow table of ``schema``, parsed by Arrow's JSON reader: converting Python
    lists with ``pa.array`` would import pandas (~0.4 s CPU, ~40 MB) just to ask whether
    each column is a pandas object. Rows Arrow's JSON cannot carry (NaN) go the slow way."""
    import pyarrow as pa
    import pyarrow.json as pj
    try:
        text = "".join(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n"
                       for row in rows)
    except ValueError:
        return pa.Table.from_pylist(rows, schema=schema)
    data = text.encode("utf-8")
    table = pj.read_json(pa.py_buffer(data),  # one block: rows may be any size
                         read_options=pj.ReadOptions(use_threads=False,
                                                     block_size=len(data) + 1),
                         parse_options=pj.ParseOptions(explicit_schema=schema,
                                                       unexpected_field_behavior="ignore"),
                         memory_pool=pa.system_memory_pool())
    return table.select(schema.names).cast(schema)


class ParquetStream:
    """A Parquet file written ``rows_per_group`` rows at a time."""

    def __init__(self, path: Path, rows_per_group: int = ROWS_PER_GROUP) -> None:
        self.path = path
        self.tmp = path.with_name(path.name + ".tmp")
        self.rows_per_group = rows_per_group
        self.pending: list[dict[str, Any]] = []
        self._writer: Any = None
        self.failed: str | None = None
        self.rows = 0
        threading.Thread(target=_import_pyarrow, name="agentv-pyarrow", daemon=True).start()

    def add(self, row: dict[str, Any]) -> None:
        if self.failed is None:
            self.pending.append(row)
            if len(self.pending) >= self.rows_per_group:
                self.flush()

    def flush(self) -> None:
        if self.failed is not None or not self.pending:
            return
        import pyarrow as pa
        import pyarrow.parquet as pq
        try:
            schema = arrow_schema()
            if self._writer is None:
                self._writer = pq.ParquetWriter(self.tmp, schema,
                                                memory_pool=pa.system_memory_pool())
            self._writer.write_table(_table(self.pending, schema))
            self.rows += len(self.pending)
        except Exception as err:  # noqa: BLE001 - disk full, or a row Arrow refuses: the
            self._fail(err)       # Parquet file is dropped, never the run or its results
        self.pending = []

    def _fail(self, err: Exception) -> None:
        self.failed = str(getattr(err, "strerror", None) or err)
        log.warning("could not write the Parquet file: %s", self.failed)
        self._close_writer()
        self.tmp.unlink(missing_ok=True)

    def _close_writer(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            try:
                writer.close()
            except OSError:
                pass

    def close(self) -> Path | None:
        """Write what is pending and the footer; the complete file replaces any older one."""
        self.flush()
        if self.failed is not None:
            return None
        try:
            if self._writer is None:  # no record: an empty file with the schema
                import pyarrow as pa
                import pyarrow.parquet as pq
                self._writer = pq.ParquetWriter(self.tmp, arrow_schema(),
                                                memory_pool=pa.system_memory_pool())
            self._writer.close()
            self._writer = None
            self.tmp.replace(self.path)
        except OSError as err:
            self._fail(err)
            return None
        return self.path


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
        self.cases.setdefault((file, row["target"] or ""), []).append(tuple(
            redact(v) if isinstance(v, str) else v for v in case_row(row, results).values()))

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
