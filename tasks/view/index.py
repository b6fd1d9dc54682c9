"""The run history: one small summary per results file (suite, targets, counts, pass rate,
cost, time, state), so the runs page never holds a run's records. A summary is computed
once per file version (path, size, mtime) from a few columns — the Parquet file beside the
results when it is complete, else the JSONL/YAML — through the statistics engine's
``Tally``; the records are dropped as soon as it is made.

State: ``error`` (red) when a case errored, ``fail`` (amber) when a case failed or was
borderline, ``pass`` (green) when every case passed; errors are never counted as quality
failures nor the other way round.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentv.providers.errors import ConfigError
from agentv.tasks.results.tally import Tally

INDEX_COLUMNS = ["timestamp", "eval_id", "dataset", "target", "trial", "case_key", "score",
                 "verdict", "error", "cost_usd", "judge_cost_usd", "input_tokens",
                 "output_tokens", "latency_ms"]
RESULT_SUFFIXES = (".jsonl", ".yaml", ".yml", ".parquet")
NOT_RESULTS = ("index.jsonl", "timing.json", "benchmark.json")
DEFAULT_FOLDER = ".agentv/results"


def results_files(sources: list[str | Path]) -> list[Path]:
    """The results files under ``sources`` (folders: their results files, one per run —
    ``x.jsonl`` and ``x.parquet`` are one run, a baselines ``index.jsonl`` is none; files:
    themselves)."""
    found: dict[Path, Path] = {}
    for source in sources:
        path = Path(source)
        items = sorted(p for p in path.iterdir() if p.suffix in RESULT_SUFFIXES
                       and p.name not in NOT_RESULTS) if path.is_dir() else [path]
        for item in items:
            if not item.is_file():
                continue
            stem = item.with_suffix("")
            if item.suffix != ".parquet" or stem not in found:
                found[stem] = item  # the JSONL/YAML is the run; a lone Parquet file too
    return list(found.values())


def readable_copy(path: Path) -> Path:
    """The Parquet file beside ``path`` when it is complete (not older), else ``path``."""
    parquet = path.with_suffix(".parquet")
    if path.suffix != ".parquet" and parquet.is_file() \
            and parquet.stat().st_mtime >= path.stat().st_mtime:
        return parquet
    return path


def state_of(errors: int, fails: int) -> str:
    return "error" if errors else ("fail" if fails else "pass")


def _times(stamps: list[Any]) -> tuple[str | None, str | None, float | None]:
    from datetime import datetime
    known = sorted(s for s in stamps if isinstance(s, str) and s)
    if not known:
        return None, None, None
    try:
        first, last = (datetime.fromisoformat(s.replace("Z", "+00:00"))
                       for s in (known[0], known[-1]))
        return known[0], known[-1], round((last - first).total_seconds(), 1)
    except ValueError:
        return known[0], known[-1], None


def summarize(path: Path) -> dict[str, Any]:
    """One run's summary: read a few columns, tally them, keep only the numbers."""
    from agentv.tasks.results.frames import load_table
    rows = load_table(readable_copy(path), columns=INDEX_COLUMNS).to_pylist()
    return summary_of(path.stem, str(path), rows)


def summary_of(run_id: str, source: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The summary of a run's rows (any columns of the results schema, INDEX_COLUMNS at
    least); ``source``: its results file (or glob)."""
    from agentv.tasks.results.run_meta import FLOW_RUN_URL, read_run_metadata
    tally = Tally()
    for row in rows:
        tally.add(row, [])
    summary = tally.summary()
    verdicts = [r["verdict"] for r in rows]
    errors, passes = verdicts.count("error"), verdicts.count("pass")
    fails = len(rows) - errors - passes
    started, finished, seconds = _times([r["timestamp"] for r in rows])
    suites = sorted({r["dataset"] or str(r["case_key"] or "").split("::")[0] for r in rows})
    cost = (summary.get("cost_usd") or 0.0) + tally.judge_cost
    return {"id": run_id, "path": source, "suites": [s for s in suites if s],
            "targets": sorted({r["target"] or "" for r in rows}), "cases": len(rows),
            "passes": passes, "fails": fails, "errors": errors,
            "pass_rate": round(passes / len(rows), 4) if rows else None,
            "mean": summary.get("mean"), "cost_usd": round(cost, 6) if cost else None,
            "started": started, "finished": finished, "seconds": seconds,
            "state": state_of(errors, fails),
            "flow_run_url": read_run_metadata(source).get(FLOW_RUN_URL)}


@dataclass
class Entry:
    version: tuple[int, int]
    summary: dict[str, Any]


class RunIndex:
    """The runs under ``sources``, newest first, each summarized once per file version;
    with ``cache``, the summaries are kept in that JSON file too (a restarted viewer reads
    no run again)."""

    def __init__(self, sources: list[str | Path], cache: Path | None = None) -> None:
        self.sources = [Path(s) for s in sources]
        self.entries: dict[Path, Entry] = {}
        self.problems: dict[str, str] = {}
        self.lock = threading.Lock()
        self.cache = cache
        self.changed = False
        self._load()

    def _load(self) -> None:
        import json
        try:
            saved = json.loads(self.cache.read_text()) if self.cache else []
        except (OSError, ValueError):
            saved = []
        for item in saved if isinstance(saved, list) else []:
            try:
                self.entries[Path(item["path"])] = Entry(tuple(item["version"]), item["summary"])
            except (KeyError, TypeError):
                continue

    def _save(self) -> None:
        import json
        if not self.cache or not self.changed:
            return
        items = [{"path": str(p), "version": list(e.version), "summary": e.summary}
                 for p, e in self.entries.items()]
        try:
            tmp = self.cache.with_name(self.cache.name + ".tmp")
            tmp.write_text(json.dumps(items))
            tmp.replace(self.cache)
            self.changed = False
        except OSError:
            pass  # a cache only

    def _entry(self, path: Path) -> dict[str, Any] | None:
        stat = readable_copy(path).stat()
        version = (stat.st_size, stat.st_mtime_ns)
        entry = self.entries.get(path)
        if entry is None or entry.version != version:
            try:
                entry = Entry(version, summarize(path))
            except (ConfigError, OSError, ValueError) as err:
                self.problems[str(path)] = str(err)
                return None
            self.entries[path] = entry
            self.changed = True
        return entry.summary

    def runs(self) -> list[dict[str, Any]]:
        with self.lock:
            files = results_files([s for s in self.sources if s.exists()])
            served = [s.resolve() for s in self.sources]
            for gone in set(self.entries) - set(files):
                if any(gone == s or gone.parent == s for s in served):
                    del self.entries[gone]  # (the cache keeps other viewers' runs)
                    self.changed = True
            found = [s for s in (self._entry(p) for p in files) if s]
            self._save()
        return sorted(found, key=lambda s: (s["started"] or "", s["id"]), reverse=True)

    def get(self, run_id: str) -> dict[str, Any] | None:
        return next((s for s in self.runs() if s["id"] == run_id), None)

    def baseline_of(self, run: dict[str, Any]) -> dict[str, Any] | None:
        """The run before ``run`` of the same suites and targets (None: it is the first)."""
        earlier = [s for s in self.runs() if s["suites"] == run["suites"]
                   and s["targets"] == run["targets"] and s["id"] != run["id"]
                   and (s["started"] or "") <= (run["started"] or "")]
        return earlier[0] if earlier else None
