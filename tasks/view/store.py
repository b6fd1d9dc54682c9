"""A run's records as rows of the results schema, read once per file version and kept for
the few runs looked at last (a case page after its run page reads nothing again)."""
from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from agentv.tasks.view.index import readable_copy

KEEP_RUNS = 3


class RunStore:
    def __init__(self, keep: int = KEEP_RUNS) -> None:
        self.keep = keep
        self.cache: OrderedDict[tuple, list[dict[str, Any]]] = OrderedDict()
        self.lock = threading.Lock()

    def rows(self, path: str | Path, columns: tuple[str, ...] | None = None
             ) -> list[dict[str, Any]]:
        """The run's rows (``columns`` only, when given: a baseline's verdicts)."""
        from agentv.tasks.results.frames import load_table
        source = readable_copy(Path(path))
        stat = source.stat()
        key = (str(source), stat.st_size, stat.st_mtime_ns, columns)
        with self.lock:
            if key in self.cache:
                self.cache.move_to_end(key)
                return self.cache[key]
        rows = load_table(source, list(columns) if columns else None).to_pylist()
        with self.lock:
            self.cache[key] = rows
            while len(self.cache) > self.keep:
                self.cache.popitem(last=False)
        return rows
