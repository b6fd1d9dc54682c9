"""The one results writer: one exclusive writer per results file, each record appended whole.

JSONL (one object per line) or YAML (one document per record, ``---`` separated,
multi-line strings in literal block style). Every record is scrubbed of secrets before it
is serialized.

The file is locked (``flock``, exclusive) from the moment the run opens it until it ends:
a second run on the same file fails at once naming the holder's PID, and nothing is
truncated before the lock is held. Each record goes out in one unbuffered ``write`` on an
``O_APPEND`` descriptor; if that write fails (disk full, file too large) the partial bytes
are cut off again, so the file always ends with a whole record and ``--resume`` continues it.

A writer may own a sink (``tasks.results.sink.RunSink``) that every written record is fed to —
the Parquet file in row groups and the summary statistics, built while the run goes on.
On ``--resume`` the sink first takes the records already in the file, so the Parquet
file and the summary cover the whole run, old records and new.
"""
from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentv.providers.errors import ConfigError
from agentv.tasks.load.redact import redact, redact_obj
from agentv.tasks.plan.outputs import check_format
from agentv.tasks.results.agentv4_rows import written
from agentv.tasks.results.nested import dump_text

if TYPE_CHECKING:
    from agentv.tasks.results.sink import RunSink

class ResultsBusy(ConfigError):
    """Another process holds the lock on this results file."""


def _yaml_dump(record: dict[str, Any]) -> str:
    import yaml

    class _Dumper(yaml.SafeDumper):
        pass

    def str_presenter(dumper: yaml.SafeDumper, data: str):
        style = "|" if "\n" in data else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)

    _Dumper.add_representer(str, str_presenter)
    return yaml.dump(json.loads(json.dumps(record, default=str)), Dumper=_Dumper,
                     sort_keys=False, allow_unicode=True, width=10_000)


def serialize(record: dict[str, Any], fmt: str) -> str:
    record = written(record)  # an AgentV 4.x test: AgentV's keys only
    if fmt == "yaml":
        return "---\n" + _yaml_dump(record)
    return dump_text(record) + "\n"


def lock_holder(path: Path) -> int | None:
    """The PID holding an flock on ``path`` (Linux ``/proc/locks``), if it can be found."""
    try:
        inode = os.stat(path).st_ino
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split()
        if "FLOCK" in parts and len(parts) > 5 and parts[-3].rsplit(":", 1)[-1] == str(inode):
            pid = parts[parts.index("FLOCK") + 3]
            return int(pid) if pid.isdigit() else None
    return None


def _open_locked(path: Path, flag: str) -> int:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
    except OSError as err:
        raise ConfigError(f"cannot open results file for writing: {err.strerror or err}",
                          str(path), flag) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        pid = lock_holder(path)
        holder = f"PID {pid}" if pid else "another process"
        raise ResultsBusy(f"another agentv run ({holder}) is writing this results file; "
                          "wait for it, or choose another --out", str(path), flag) from None
    return fd


class ResultWriter:
    """Opened (and locked) before the run; ``begin`` empties it unless appending (resume)."""

    def __init__(self, path: str | Path, fmt: str = "jsonl", append: bool = False,
                 flag: str = "--out", sink: RunSink | None = None):
        self.path = Path(path)
        self.fmt = check_format(fmt)
        self.append = append
        existed = self.path.exists()
        self._fd: int = _open_locked(self.path, flag)
        self._closed = False
        self._created = not existed
        self._begun = False
        self.count = 0
        self.sink = sink
        self._size: int | None = None  # the file's size after our last write (None: ask)

    def begin(self) -> None:
        """The run starts: a fresh (non-resume) results file is emptied now, not before."""
        if not self._begun:
            self._begun = True
            if not self.append:
                os.ftruncate(self._fd, 0)
            elif self.sink is not None:
                self.sink.add_file(self.path)

    def write(self, record: dict[str, Any]) -> dict[str, Any]:
        """Append one scrubbed record; returns it (what was written)."""
        if self.sink is not None:
            record = self.sink.linked(record)  # --output: its run-folder paths
        if self.fmt == "jsonl":  # one regex pass over the line (a walk costs 4x more)
            text = serialize(record, self.fmt)
            # the whole record: an AgentV 4.x row leaves keys out (the answer), which the
            # sink still gets (Parquet, the run folder)
            whole = text if written(record) is record else dump_text(record)
            if redact(whole) != whole:
                record = redact_obj(record)
                text = serialize(record, self.fmt)
        else:
            record = redact_obj(record)
            text = serialize(record, self.fmt)
        data = text.encode("utf-8")
        self.begin()
        size = self._size if self._size is not None else os.fstat(self._fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view):]
        except OSError:
            self._size = None  # the cut may fail too: asked again next time
            self._cut_back(size)
            raise
        self._size = size + len(data)  # the file is ours (locked): no fstat a record
        self.count += 1
        if self.sink is not None:
            self.sink.add(record)
        return record

    def _cut_back(self, size: int) -> None:
        try:
            os.ftruncate(self._fd, size)
        except OSError:
            pass

    def abandon(self) -> None:
        """Nothing ran (a configuration error): unlock, and remove the file if we made it."""
        if not self._closed and self._created and not self._begun \
                and os.fstat(self._fd).st_size == 0:
            self.path.unlink(missing_ok=True)
        self.close()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            if self.sink is not None and self._begun:
                self.sink.finish()  # the Parquet file holds every record written
            os.close(self._fd)  # releases the lock

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> "ResultWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

