"""The local server's SQLite file shrinks after deletes: history older than the cut-off
(events, their resources, logs of deleted flow runs) goes, VACUUM gives the free pages back
and the write-ahead log is emptied — also while another connection holds the file, as the
server does; the server start compacts a file with much free space."""
from __future__ import annotations

import sqlite3
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from agentv.flows.prefect.db_compact import compact, files_size, worth_compacting

SCHEMA = """
CREATE TABLE events (id TEXT PRIMARY KEY, occurred DATETIME NOT NULL, payload TEXT);
CREATE TABLE event_resources (id TEXT PRIMARY KEY, occurred DATETIME NOT NULL,
                              event_id TEXT);
CREATE TABLE flow_run (id TEXT PRIMARY KEY);
CREATE TABLE log (id TEXT PRIMARY KEY, flow_run_id TEXT, timestamp DATETIME NOT NULL,
                  message TEXT);
"""


def _stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%d %H:%M:%S.%f")


def _history(db: Path, rows: int = 3000) -> tuple[datetime, datetime]:
    """A WAL-mode file like Prefect's: old and young events and logs (4 KB each), one flow
    run kept. Returns (old, young) times."""
    old = datetime.now(timezone.utc) - timedelta(days=40)
    young = datetime.now(timezone.utc) - timedelta(days=1)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.executescript(SCHEMA)
    conn.execute("INSERT INTO flow_run VALUES ('kept')")
    with conn:
        conn.execute("BEGIN")
        for i in range(rows):
            when = _stamp(old if i % 10 else young)
            conn.execute("INSERT INTO events VALUES (?, ?, ?)", (f"e{i}", when, "x" * 4000))
            conn.execute("INSERT INTO event_resources VALUES (?, ?, ?)", (f"r{i}", when, f"e{i}"))
            run = "kept" if i % 2 else "gone"
            conn.execute("INSERT INTO log VALUES (?, ?, ?, ?)", (f"l{i}", run, when, "y" * 100))
    conn.close()
    return old, young


def _count(db: Path, table: str) -> int:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        conn.close()


def test_history_older_than_the_cutoff_goes_and_the_files_shrink(tmp_path):
    db = tmp_path / "prefect.db"
    _history(db)
    grown = files_size(db)
    done = compact(db, datetime.now(timezone.utc) - timedelta(days=30))
    assert done.before == grown and done.checkpointed
    assert done.trimmed == {"event resources": 2700, "events": 2700, "logs": 1200}
    assert _count(db, "events") == 300 and _count(db, "log") == 1800  # young, or the kept run's
    assert done.after == files_size(db) < grown / 5
    wal = tmp_path / "prefect.db-wal"  # (gone with the last connection, when no server)
    assert not wal.exists() or wal.stat().st_size == 0


def test_a_connection_holding_the_file_only_delays_the_vacuum(tmp_path):
    """The server writes as the prune compacts: the VACUUM waits for its write lock."""
    db = tmp_path / "prefect.db"
    _history(db)
    holder = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")  # the server's write transaction
    holder.execute("DELETE FROM events")

    def commit_later() -> None:
        time.sleep(1.0)
        holder.execute("COMMIT")
    threading.Thread(target=commit_later).start()
    started = time.monotonic()
    done = compact(db, None, timeout_s=30)
    holder.close()
    assert 0.9 < time.monotonic() - started < 30
    assert done.trimmed == {} and done.after < done.before / 5


def test_only_a_file_with_much_free_space_is_compacted_at_server_start(tmp_path):
    db = tmp_path / "prefect.db"
    assert not worth_compacting(db)  # no file yet
    _history(db, rows=4000)
    compact(db)  # the log emptied: nothing free yet
    assert not worth_compacting(db)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("DELETE FROM events")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    assert worth_compacting(db)


def test_a_server_that_is_not_agentvs_own_only_gets_the_api_deletes(tmp_path, monkeypatch):
    from agentv.flows.prefect import server
    from agentv.flows.prefect.prune import shrink
    from agentv.flows.prefect.server import own_database
    monkeypatch.setenv("AGENTV_HOME", str(tmp_path))
    (tmp_path / "prefect").mkdir()
    (tmp_path / "prefect" / "prefect.db").write_bytes(b"")
    (tmp_path / "server.json").write_text(
        '{"api_url": "http://127.0.0.1:4321/api", "database": "%s"}'
        % (tmp_path / "prefect" / "prefect.db"))
    assert own_database("http://127.0.0.1:4321/api/") == server.default_database()
    assert own_database("https://prefect.example.com/api") is None
    line = shrink(None, timedelta(days=30))
    assert line.startswith("database: not compacted — the server is not agentv's own")
