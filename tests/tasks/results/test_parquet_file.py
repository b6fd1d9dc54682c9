"""The run's Parquet file as pyarrow writes it, checked through pyarrow and pandas: the
results schema and its metadata, one row group per ``rows_per_group`` rows, ZSTD, column
statistics on the columns readers filter on, ``created_by`` pyarrow's, the writing done on
the writer thread; a value the schema cannot hold drops the file, never the caller."""
from __future__ import annotations

import math
import random
import struct
import threading

import pandas as pd
import pyarrow.parquet as pq
import pytest

from agentv.tasks.results.frames import load_results, record_to_row, write_parquet
from agentv.tasks.results.parquet_file import STATISTICS, ParquetStream
from agentv.tasks.results.schema import SCHEMA_VERSION, STORED_COLUMNS, arrow_schema
from tests.tasks.results.test_frames import record, write_jsonl


def rows(n: int) -> list[dict]:
    return [record_to_row(record(f"case-{i:03d}", (i % 10) / 10, trial=i % 2,
                                 target="t1" if i % 3 else "t2")) for i in range(n)]


def streamed(path, data: list[dict], per_group: int) -> ParquetStream:
    stream = ParquetStream(path, per_group)
    for row in data:
        stream.add(row)
    return stream


def test_row_groups_schema_statistics_zstd_and_created_by(tmp_path):
    data = rows(23)
    stream = streamed(tmp_path / "r.parquet", data, 10)
    assert stream.close() == tmp_path / "r.parquet" and stream.rows == 23
    f = pq.ParquetFile(tmp_path / "r.parquet")
    meta = f.metadata
    assert meta.created_by.startswith("parquet-cpp-arrow version")
    assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == [10, 10, 3]
    assert f.schema_arrow.equals(arrow_schema(), check_metadata=True)
    assert f.schema_arrow.metadata == {b"agentv_schema_version": SCHEMA_VERSION.encode()}
    first = meta.row_group(0)
    flat = [c for c in STORED_COLUMNS if c != "evaluators"]  # the nested column comes last
    for i, name in enumerate(flat):
        column = first.column(i)  # hits and misses: lists of strings ("hits.list.element")
        assert column.path_in_schema.split(".")[0] == name and column.compression == "ZSTD"
        assert column.is_stats_set == (name in STATISTICS), name
    leaves = [first.column(i) for i in range(len(flat), first.num_columns)]
    assert [c.path_in_schema.split(".")[-1] for c in leaves][:2] == ["name", "type"]
    assert all(c.path_in_schema.startswith("evaluators.") and c.compression == "ZSTD"
               for c in leaves)
    score, eval_id = (first.column(STORED_COLUMNS.index(c)).statistics
                      for c in ("score", "eval_id"))
    assert (score.min, score.max, score.null_count) == (0.0, 0.9, 0)
    assert (eval_id.min, eval_id.max) == ("case-000", "case-009")
    assert {"eval_id", "target", "trial", "score", "verdict", "latency_ms"} <= set(STATISTICS)
    assert not {"candidate_answer", "evaluator_results", "extra"} & set(STATISTICS)
    stored = [{k: v for k, v in row.items() if k != "evaluator_results"} for row in data]
    assert f.read().to_pylist() == stored  # the results once: as structs, not JSON text


def test_pandas_and_load_results_read_the_rows_back(tmp_path):
    data = rows(12)
    streamed(tmp_path / "r.parquet", data, 5).close()
    df = pd.read_parquet(tmp_path / "r.parquet")
    assert list(df.columns) == list(STORED_COLUMNS) and len(df) == 12
    assert df["score"].tolist() == [r["score"] for r in data]
    loaded = load_results(tmp_path / "r.parquet")
    assert loaded["trial"].tolist() == [r["trial"] for r in data]
    assert str(loaded["trial"].dtype) == "Int64"


def test_row_groups_are_written_on_the_writer_thread(tmp_path, monkeypatch):
    threads = []
    write = ParquetStream._write_group

    def spy(self, group):
        threads.append(threading.current_thread().name)
        write(self, group)
    monkeypatch.setattr(ParquetStream, "_write_group", spy)
    stream = streamed(tmp_path / "r.parquet", rows(9), 4)
    assert not (tmp_path / "r.parquet").exists()  # complete files only
    stream.close()
    assert len(threads) == 3 and all(t.startswith("agentv-parquet") for t in threads)
    assert threading.current_thread().name not in threads


def test_values_come_back_exactly(tmp_path):
    """Floats to the last bit (NaN, ±inf, -0.0, 1e-300), int64 extremes, Unicode, line
    breaks and NUL in strings, nulls everywhere."""
    rng = random.Random(3)
    floats = [0.1, -0.0, 1e-300, 1.7976931348623157e308, math.inf, -math.inf, math.nan] + [
        rng.random() * 10 ** rng.randint(-8, 8) for _ in range(40)]
    strings = ["", "héllo ✓ 日本語 🙂", "line\nbreak\x00tab\t", '{"a": [1, 2]}', "x" * 70_000]
    data = [{"eval_id": strings[i % 5], "score": f, "trial": [0, -2**63, 2**63 - 1][i % 3],
             "cached": bool(i % 2), "latency_ms": None} for i, f in enumerate(floats)]
    streamed(tmp_path / "r.parquet", data, 8).close()
    back = pq.read_table(tmp_path / "r.parquet").to_pylist()
    for want, got in zip(data, back):
        assert got["eval_id"] == want["eval_id"] and got["trial"] == want["trial"]
        assert got["cached"] is want["cached"] and got["latency_ms"] is None
        assert got["extra"] is None
        if math.isnan(want["score"]):
            assert math.isnan(got["score"])
        else:
            assert struct.pack("<d", got["score"]) == struct.pack("<d", want["score"])


def test_an_empty_file_has_the_schema(tmp_path):
    assert ParquetStream(tmp_path / "e.parquet").close() == tmp_path / "e.parquet"
    table = pq.read_table(tmp_path / "e.parquet")
    assert table.num_rows == 0 and table.schema.equals(arrow_schema(), check_metadata=True)


@pytest.mark.parametrize("column, value", [
    ("trial", 2**63), ("trial", 1.5), ("trial", "3"), ("score", "high"), ("cached", 1),
    ("eval_id", 12), ("eval_id", "half a surrogate \ud800")])
def test_a_value_the_schema_cannot_hold_drops_the_file(tmp_path, caplog, column, value):
    caplog.set_level("DEBUG", logger="agentv.sink")
    data = rows(6)
    data[4][column] = value
    stream = streamed(tmp_path / "r.parquet", data, 3)
    assert stream.close() is None and stream.failed
    assert not list(tmp_path.iterdir())  # no file, no .tmp
    assert "could not write the Parquet file" in caplog.text


def test_write_parquet_uses_the_same_writer_and_leaves_nothing_on_bad_input(tmp_path):
    good = write_jsonl(tmp_path / "r.jsonl", [record(f"c{i}", 0.5) for i in range(7)])
    meta = pq.ParquetFile(write_parquet(good, chunk_rows=3)).metadata
    assert meta.num_row_groups == 3 and meta.row_group(0).column(0).compression == "ZSTD"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(good.read_text() + '{"eval_id": "x"}\n')
    with pytest.raises(Exception, match="result record has no 'score'"):
        write_parquet(bad, tmp_path / "bad.parquet", chunk_rows=3)
    assert not list(tmp_path.glob("bad.parquet*"))
    with pytest.raises(OSError, match="cannot write"):
        write_parquet(good, tmp_path / "missing-dir" / "r.parquet")


def test_a_failed_file_logs_no_warning_of_its_own(tmp_path, caplog):
    """A disk-full run prints its one ``error:`` line with no Parquet WARNING before it: the
    writer thread only records why (the run's summary says it, when the run gets there)."""
    stream = streamed(tmp_path / "missing-dir" / "r.parquet", rows(4), 2)
    assert stream.close() is None and stream.failed
    assert not [r for r in caplog.records if r.levelname == "WARNING"]
