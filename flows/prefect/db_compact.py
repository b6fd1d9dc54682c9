"""agentv's own Prefect server keeps its database in one SQLite file (plus its write-ahead
log, ``-wal``): deleting rows frees pages inside the file, never disk. Here the history the
API cannot delete goes too (events and their resources older than the cut-off, logs of
deleted flow runs: the rows Prefect's own vacuum service deletes, by the same conditions),
then ``VACUUM`` rewrites the file without its free pages and ``PRAGMA
wal_checkpoint(TRUNCATE)`` empties the log.

Safe with the server running: SQLite locks the file; a statement that meets the server's
write lock waits (``BUSY_TIMEOUT_S``) and is tried again until ``timeout_s``. The server
start compacts a file with much free space before the server opens it.
No Prefect import here.
"""
from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

BUSY_TIMEOUT_S = 10.0
COMPACT_TIMEOUT_S = 120.0
WORTH_FREE = 0.25  # a file with this share of free pages (and at least WORTH_MB) is compacted
WORTH_MB = 8.0
TRIM = (  # (what, statement): the cut-off as Prefect writes datetimes (UTC)
    ("event resources", "DELETE FROM event_resources WHERE occurred < ?"),
    ("events", "DELETE FROM events WHERE occurred < ?"),
    ("logs", "DELETE FROM log WHERE timestamp < ? AND flow_run_id IS NOT NULL "
             "AND flow_run_id NOT IN (SELECT id FROM flow_run)"),
)


@dataclass
class Compacted:
    before: int  # bytes of the database and its write-ahead log
    after: int
    trimmed: dict[str, int]
    checkpointed: bool = True  # False: a reader kept the log from being emptied in time


def files_size(db: Path) -> int:
    """Bytes of the database file and its write-ahead log."""
    return sum(p.stat().st_size for p in (db, db.with_name(db.name + "-wal")) if p.exists())


def _timestamp(cutoff: datetime) -> str:
    return cutoff.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")


def compact(db: Path, cutoff: datetime | None = None,
            timeout_s: float = COMPACT_TIMEOUT_S) -> Compacted:
    """Trim history older than ``cutoff`` (None: trim nothing), then VACUUM and empty the
    write-ahead log."""
    before = files_size(db)
    deadline = time.monotonic() + timeout_s
    trimmed: dict[str, int] = {}
    conn = sqlite3.connect(str(db), timeout=BUSY_TIMEOUT_S, isolation_level=None)
    try:
        if cutoff is not None:
            stamp = _timestamp(cutoff)
            for what, statement in TRIM:
                trimmed[what] = _retrying(conn, statement, (stamp,), deadline).rowcount
        _retrying(conn, "VACUUM", (), deadline)
        checkpointed = _checkpoint(conn, deadline)
    finally:
        conn.close()
    return Compacted(before, files_size(db), trimmed, checkpointed)


def _retrying(conn: sqlite3.Connection, statement: str, args: tuple, deadline: float
              ) -> sqlite3.Cursor:
    while True:
        try:
            return conn.execute(statement, args)
        except sqlite3.OperationalError as err:
            if not _busy(err) or time.monotonic() >= deadline:
                raise
            time.sleep(0.5)


def _busy(err: sqlite3.OperationalError) -> bool:
    return "locked" in str(err) or "busy" in str(err)


def _checkpoint(conn: sqlite3.Connection, deadline: float) -> bool:
    """Copy the log into the file and truncate it; a reader in the middle of the log
    blocks that, so it is tried again until ``deadline``."""
    while True:
        busy = _retrying(conn, "PRAGMA wal_checkpoint(TRUNCATE)", (), deadline).fetchone()[0]
        if not busy:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.2)


def worth_compacting(db: Path) -> bool:
    """Whether the file holds enough free pages (or log) to be worth a VACUUM."""
    if not db.exists():
        return False
    wal = db.with_name(db.name + "-wal")
    if wal.exists() and wal.stat().st_size > WORTH_MB * 1e6:
        return True
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S)
        try:
            pages = conn.execute("PRAGMA page_count").fetchone()[0]
            free = conn.execute("PRAGMA freelist_count").fetchone()[0]
            size = conn.execute("PRAGMA page_size").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return False
    return pages > 0 and free / pages >= WORTH_FREE and free * size >= WORTH_MB * 1e6


def megabytes(size: int) -> str:
    return f"{size / 1e6:.1f} MB"
