"""The nightly's default baseline: a results index kept next to the nightly results.

``<out_dir>/index.jsonl`` holds one JSON line per finished nightly run (its deployment,
suites, results file, whether it succeeded, when) and one per pin (``agentv baseline
promote RESULTS``). A run's line key is ``deployment | suite, suite``: the baseline of a
run is the newest pin of its key, else the last successful run of its key.
Prefect-free: the nightly flow and `agentv baseline` share it.
"""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agentv.providers.errors import ConfigError

INDEX = "index.jsonl"
LOCAL = "local"  # the key's deployment part when the flow is called outside a deployment


def run_key(deployment: str | None, suites: list[str]) -> str:
    return f"{deployment or LOCAL} | {', '.join(sorted(suites))}"


def index_path(out_dir: str | Path) -> Path:
    return Path(out_dir) / INDEX


def read_index(out_dir: str | Path) -> list[dict[str, Any]]:
    """Every entry of the index (none when it does not exist); a torn last line is skipped."""
    path = index_path(out_dir)
    if not path.exists():
        return []
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and "key" in entry and "results" in entry:
            entries.append(entry)
    return entries


def _append(out_dir: str | Path, entry: dict[str, Any]) -> dict[str, Any]:
    path = index_path(out_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    entry = {**entry, "at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    with open(path, "a", encoding="utf-8") as sink:
        sink.write(json.dumps(entry) + "\n")
    return entry


def record_run(out_dir: str | Path, key: str, results: str | Path, ok: bool,
               flow_run_id: str | None = None) -> dict[str, Any]:
    """Add a finished run: ``ok`` runs (no regression, no failed gate) can be baselines."""
    return _append(out_dir, {"key": key, "results": str(Path(results).resolve()), "ok": ok,
                             "flow_run_id": flow_run_id, "pinned": False})


def find_baseline(out_dir: str | Path, key: str) -> dict[str, Any] | None:
    """The newest pin of ``key`` whose results still exist, else its last successful run."""
    entries = [e for e in read_index(out_dir)
               if e["key"] == key and Path(e["results"]).exists()]
    pins = [e for e in entries if e.get("pinned")]
    if pins:
        return pins[-1]
    runs = [e for e in entries if e.get("ok")]
    return runs[-1] if runs else None


def promote(results: str | Path, out_dir: str | Path | None = None,
            key: str | None = None) -> dict[str, Any]:
    """Pin ``results`` as the baseline of its run's key (found in the index next to it: a
    nightly writes ``<out_dir>/<run>/results.jsonl``), or of ``key`` in ``out_dir``."""
    path = Path(results).resolve()
    if not path.is_file():
        raise ConfigError("results file not found", str(results), "RESULTS")
    out_dir = Path(out_dir) if out_dir else path.parent.parent
    if key is None:
        known = [e for e in read_index(out_dir) if Path(e["results"]) == path]
        if not known:
            raise ConfigError(f"not a nightly run's results (not in {index_path(out_dir)}); "
                              "name the run with --deployment and --suite", str(results),
                              "RESULTS")
        key = known[-1]["key"]
    return _append(out_dir, {"key": key, "results": str(path), "ok": True, "pinned": True,
                             "flow_run_id": None})
