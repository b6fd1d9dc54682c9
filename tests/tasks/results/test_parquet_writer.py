"""The pure-Python Parquet writer against pyarrow, the reference: a file it writes reads
back (pyarrow, pandas) exactly as the same rows written by pyarrow do — types, nulls,
NaN/±inf/-0.0, int64 extremes, Unicode, row groups, key-value metadata — and a value the
schema cannot hold raises instead of writing a wrong file."""
from __future__ import annotations

import io
import math
import random
import struct

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tasks.results.parquet_writer import ParquetWriter
from tasks.results.schema import COLUMN_TYPES, SCHEMA_VERSION, arrow_schema

META = {"agentv_schema_version": SCHEMA_VERSION}
SAMPLES = {
    "string": ["", "plain", "héllo ✓ 日本語 🙂", "x" * 5000, '{"a": [1, 2]}', "line\nbreak\x00"],
    "int64": [0, -1, 1, 2**63 - 1, -2**63, 123456789],
    "float64": [0.0, -0.0, 1.5, float("nan"), float("inf"), float("-inf"), 1e-300, 0.1],
    "bool": [True, False],
}


def random_rows(n: int, seed: int = 1, null_share: float = 0.3) -> list[dict]:
    rng = random.Random(seed)
    return [{c: None if rng.random() < null_share else rng.choice(SAMPLES[kind])
             for c, kind in COLUMN_TYPES.items()} for _ in range(n)]


def write(path, groups: list[list[dict]]):
    with open(path, "wb") as fh:
        writer = ParquetWriter(fh, COLUMN_TYPES, META)
        for rows in groups:
            writer.write_rows(rows)
        writer.close()
    return path


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b))
    return type(a) is type(b) and a == b


def assert_same_rows(mine: pa.Table, ref: pa.Table) -> None:
    assert mine.num_rows == ref.num_rows
    for got, want in zip(mine.to_pylist(), ref.to_pylist()):
        assert all(same(got[k], want[k]) for k in want), (got, want)


@pytest.mark.parametrize("sizes", [[1], [7, 7, 3], [500, 500, 237], [9, 1]])
def test_reads_back_as_pyarrows_own_file(tmp_path, sizes):
    rows = random_rows(sum(sizes), seed=len(sizes))
    rows[0] = {c: None for c in COLUMN_TYPES}  # a row of nulls
    groups, start = [], 0
    for size in sizes:
        groups.append(rows[start:start + size])
        start += size
    f = pq.ParquetFile(write(tmp_path / "mine.parquet", groups))
    pq.write_table(pa.Table.from_pylist(rows, schema=arrow_schema()), tmp_path / "ref.parquet")
    ref = pq.ParquetFile(tmp_path / "ref.parquet")
    assert f.metadata.num_row_groups == len(sizes)
    assert [f.metadata.row_group(i).num_rows for i in range(len(sizes))] == sizes
    assert f.schema.equals(ref.schema)  # Parquet types, String annotations, nullability
    assert f.schema_arrow.equals(ref.schema_arrow, check_metadata=True)
    assert f.schema_arrow.metadata == {b"agentv_schema_version": SCHEMA_VERSION.encode()}
    assert_same_rows(f.read(), ref.read())
    assert_same_rows(f.read_row_group(len(sizes) - 1), ref.read().slice(sum(sizes[:-1])))
    column = f.metadata.row_group(0).column(1)
    assert column.statistics.null_count == sum(r["eval_id"] is None for r in groups[0])


def test_pandas_reads_the_same_frame(tmp_path):
    pd = pytest.importorskip("pandas")
    rows = random_rows(300, seed=5)
    write(tmp_path / "mine.parquet", [rows[:120], rows[120:]])
    pq.write_table(pa.Table.from_pylist(rows, schema=arrow_schema()), tmp_path / "ref.parquet")
    mine = pd.read_parquet(tmp_path / "mine.parquet")
    ref = pd.read_parquet(tmp_path / "ref.parquet")
    assert list(mine.dtypes) == list(ref.dtypes)
    assert mine.equals(ref)


def test_columns_that_are_all_null_or_never_null(tmp_path):
    rows = [{c: (None if kind == "string" else SAMPLES[kind][i % len(SAMPLES[kind])])
             for c, kind in COLUMN_TYPES.items()} for i in range(17)]
    table = pq.read_table(write(tmp_path / "f.parquet", [rows]))
    assert table.column("eval_id").null_count == 17 and table.column("trial").null_count == 0
    assert table.column("cached").to_pylist() == [i % 2 == 0 for i in range(17)]


def test_a_file_without_rows_has_the_schema():
    buffer = io.BytesIO()
    ParquetWriter(buffer, COLUMN_TYPES, META).close()
    table = pq.read_table(pa.BufferReader(buffer.getvalue()))
    assert table.num_rows == 0
    assert table.schema.equals(arrow_schema(), check_metadata=True)


@pytest.mark.parametrize("column, value", [
    ("trial", 2**63), ("trial", 1.5), ("trial", "3"), ("score", "high"), ("cached", 1),
    ("eval_id", 12), ("eval_id", "half a surrogate \ud800")])
def test_a_value_the_schema_cannot_hold_raises(column, value):
    rows = random_rows(3)
    rows[1][column] = value
    with pytest.raises((TypeError, struct.error, UnicodeEncodeError)):
        ParquetWriter(io.BytesIO(), COLUMN_TYPES, META).write_rows(rows)
