"""A Parquet file of flat, nullable columns written one row group at a time, in pure Python.

The results schema is flat (string, int64, float64 and bool columns, every one nullable),
so the run writes its Parquet file without pyarrow: importing pyarrow and touching its
libraries costs a run ~50 MB of memory, more than the rest of agentv's own. Readers see
exactly what pyarrow would have written for the schema: the same Parquet types (strings
as ``BYTE_ARRAY`` annotated ``String``), nullability and key-value metadata. Each column
chunk is one data page (format v1, PLAIN values, RLE/bit-packed definition levels),
compressed with GZIP (zlib, in the standard library).

Writing fails with an exception (the caller drops the file) for a value of the wrong type,
an integer outside int64, or a string that is not encodable as UTF-8.
"""
from __future__ import annotations

import struct
import zlib
from typing import IO, Any, Iterable

MAGIC = b"PAR1"
CREATED_BY = "agentv parquet_writer"
# Parquet enums (parquet.thrift)
_PHYSICAL = {"string": 6, "int64": 2, "float64": 5, "bool": 0}  # BYTE_ARRAY, INT64, DOUBLE,
OPTIONAL, UTF8 = 1, 0                                             # BOOLEAN
PLAIN, RLE, GZIP, DATA_PAGE = 0, 3, 2, 0
# Thrift compact protocol field types
_I32, _I64, _BINARY, _LIST, _STRUCT = 5, 6, 8, 9, 12


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _zigzag(n: int) -> bytes:
    return _varint((n << 1) ^ (n >> 63))


class _Struct:
    """A thrift struct in the compact protocol: ``field(id, type, value)`` in id order."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.last = 0

    def field(self, fid: int, kind: int, value: Any) -> "_Struct":
        delta = fid - self.last
        self.out += bytes([delta << 4 | kind]) if 0 < delta <= 15 else \
            bytes([kind]) + _zigzag(fid)
        self.last = fid
        self.out += _value(kind, value)
        return self

    def end(self) -> bytes:
        return bytes(self.out) + b"\x00"


def _value(kind: int, value: Any) -> bytes:
    if kind in (_I32, _I64):
        return _zigzag(value)
    if kind == _BINARY:
        data = value.encode("utf-8") if isinstance(value, str) else value
        return _varint(len(data)) + data
    if kind == _STRUCT:
        return value  # an encoded struct
    items, item_kind = value  # _LIST: (items, kind of item)
    head = bytes([len(items) << 4 | item_kind]) if len(items) < 15 else \
        bytes([0xF0 | item_kind]) + _varint(len(items))
    return head + b"".join(_value(item_kind, item) for item in items)


def _levels(present: list[bool]) -> bytes:
    """Definition levels (bit width 1) as one bit-packed run, with v1's 4-byte length."""
    groups = -(-len(present) // 8)
    body = _varint(groups << 1 | 1) + _bits(present, groups)
    return struct.pack("<i", len(body)) + body


def _bits(flags: list[bool], nbytes: int) -> bytes:
    value = 0
    for i, flag in enumerate(flags):
        if flag:
            value |= 1 << i
    return value.to_bytes(nbytes, "little")


def _plain(kind: str, values: list[Any]) -> bytes:
    if kind == "string":
        parts: list[bytes] = []
        for v in values:
            if not isinstance(v, str):
                raise TypeError(f"expected a string, got {type(v).__name__}")
            data = v.encode("utf-8")
            parts += (struct.pack("<i", len(data)), data)
        return b"".join(parts)
    if kind == "int64":
        if any(isinstance(v, float) or not isinstance(v, int) for v in values):
            raise TypeError("expected integers")
        return struct.pack(f"<{len(values)}q", *values)
    if kind == "float64":
        return struct.pack(f"<{len(values)}d", *values)
    if any(not isinstance(v, bool) for v in values):
        raise TypeError("expected booleans")
    return _bits(values, -(-len(values) // 8))


class _Chunk:
    """Where one column chunk landed: what the footer says about it."""

    def __init__(self, name: str, kind: str, offset: int, size: int, raw: int, count: int,
                 nulls: int) -> None:
        self.name, self.kind, self.offset = name, kind, offset
        self.size, self.raw, self.count, self.nulls = size, raw, count, nulls

    def encode(self) -> bytes:
        stats = _Struct().field(3, _I64, self.nulls).end()
        meta = (_Struct().field(1, _I32, _PHYSICAL[self.kind])
                .field(2, _LIST, ([PLAIN, RLE], _I32)).field(3, _LIST, ([self.name], _BINARY))
                .field(4, _I32, GZIP).field(5, _I64, self.count).field(6, _I64, self.raw)
                .field(7, _I64, self.size).field(9, _I64, self.offset)
                .field(12, _STRUCT, stats).end())
        return _Struct().field(2, _I64, self.offset).field(3, _STRUCT, meta).end()


class ParquetWriter:
    """``write_rows`` appends a row group; ``close`` writes the footer. ``columns`` maps each
    column name to ``string``, ``int64``, ``float64`` or ``bool``."""

    def __init__(self, fh: IO[bytes], columns: dict[str, str],
                 metadata: dict[str, str] | None = None, level: int = 1) -> None:
        self.fh, self.columns, self.metadata, self.level = fh, columns, metadata or {}, level
        self.groups: list[tuple[list[_Chunk], int]] = []
        self.offset = fh.write(MAGIC)

    def write_rows(self, rows: Iterable[dict[str, Any]]) -> None:
        rows = list(rows)
        if not rows:
            return
        pages = [self._page(name, kind, [row.get(name) for row in rows])
                 for name, kind in self.columns.items()]  # all encoded before any is written
        chunks = []
        for name, kind, page, raw, nulls in pages:
            chunks.append(_Chunk(name, kind, self.offset, len(page), raw, len(rows), nulls))
            self.offset += self.fh.write(page)
        self.groups.append((chunks, len(rows)))

    def _page(self, name: str, kind: str, values: list[Any]) -> tuple[str, str, bytes, int, int]:
        present = [v is not None for v in values]
        data = _levels(present) + _plain(kind, [v for v in values if v is not None])
        packed = zlib.compress(data, self.level, wbits=31)  # gzip framing, as Parquet wants
        header = (_Struct().field(1, _I32, DATA_PAGE).field(2, _I32, len(data))
                  .field(3, _I32, len(packed))
                  .field(5, _STRUCT, _Struct().field(1, _I32, len(values)).field(2, _I32, PLAIN)
                         .field(3, _I32, RLE).field(4, _I32, RLE).end()).end())
        return name, kind, header + packed, len(header) + len(data), present.count(False)

    def close(self) -> None:
        footer = self._footer()
        self.fh.write(footer + struct.pack("<i", len(footer)) + MAGIC)

    def _footer(self) -> bytes:
        root = _Struct().field(4, _BINARY, "schema").field(5, _I32, len(self.columns)).end()
        schema = [root] + [_schema_element(name, kind) for name, kind in self.columns.items()]
        groups = [_Struct().field(1, _LIST, ([c.encode() for c in chunks], _STRUCT))
                  .field(2, _I64, sum(c.raw for c in chunks)).field(3, _I64, rows)
                  .field(5, _I64, chunks[0].offset).field(6, _I64, sum(c.size for c in chunks))
                  .end() for chunks, rows in self.groups]
        pairs = [_Struct().field(1, _BINARY, k).field(2, _BINARY, v).end()
                 for k, v in self.metadata.items()]
        meta = (_Struct().field(1, _I32, 2).field(2, _LIST, (schema, _STRUCT))
                .field(3, _I64, sum(rows for _, rows in self.groups))
                .field(4, _LIST, (groups, _STRUCT)))
        if pairs:
            meta.field(5, _LIST, (pairs, _STRUCT))
        return meta.field(6, _BINARY, CREATED_BY).end()


def _schema_element(name: str, kind: str) -> bytes:
    element = _Struct().field(1, _I32, _PHYSICAL[kind]).field(3, _I32, OPTIONAL) \
        .field(4, _BINARY, name)
    if kind == "string":  # converted type UTF8 and logical type STRING (union field 1)
        element.field(6, _I32, UTF8).field(10, _STRUCT, _Struct().field(
            1, _STRUCT, b"\x00").end())
    return element.end()

