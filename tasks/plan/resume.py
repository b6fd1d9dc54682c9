"""``--resume`` / ``--rerun-failed`` / ``--retry-errors``: continue an earlier run.

``--resume`` continues a results file: every case with a record is done, but those the
run did not get to (``--budget-usd`` records them as not run) run now. ``--rerun-failed``
continues it too, running its errors and failures again; ``--retry-errors`` writes a new
results file holding the earlier file's records, but its execution errors run again.
Records whose cases run again leave the file (to ``<file>.replaced``), so every case keeps
one record.

The last line of a JSONL file may be torn (the process died mid-write): it is cut off.
A damaged line in the middle (two writers, a crash of an older version) is reported with
its line number, saved to ``<file>.torn`` and removed from the file; that case runs again.
Every complete record's ``case_key`` is marked done, so nothing is recorded twice.
An explicitly named file is resumed even when it is empty (what ``kill -9`` leaves before
the first record).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from agentv.providers.errors import ConfigError

RESULTS_DIR = Path(".agentv") / "results"


@dataclass
class Finished:
    """What an earlier run left: its kept records (their cases do not run again)."""

    keys: set[str] = field(default_factory=set)
    records: list[dict[str, Any]] = field(default_factory=list)
    repaired_bytes: int = 0
    torn_lines: list[int] = field(default_factory=list)
    again: int = 0  # records whose cases run again (not run, errors, failures)
    carry: list[dict[str, Any]] = field(default_factory=list)  # to write first (a new file)


def resolve_resume_path(value: str, fmt: str, flag: str = "--resume") -> Path:
    """``latest`` → the newest results file of this format under .agentv/results/. A named
    ``--resume`` file that does not exist yet is where a fresh run writes (as AgentV 4.x's
    ``--resume`` starts fresh without its ``index.jsonl``); a missing ``--rerun-failed`` or
    ``--retry-errors`` file is an error: there is nothing to run again."""
    if value != "latest":
        path = Path(value)
        if flag == "--resume" and not path.exists():
            from agentv.tasks.plan.outputs import check_file_target
            check_file_target(value, flag)
            return path
        if not path.is_file():
            raise ConfigError(f"results file not found (for {flag}: it runs again what an "
                              "earlier run's results file holds; drop it to start a run)",
                              value, flag)
        return path
    found = sorted(RESULTS_DIR.glob(f"eval_*.{fmt}"), key=lambda p: p.stat().st_mtime)
    if not found:
        raise ConfigError(f"no results file in {RESULTS_DIR} (for {flag} latest)", None, flag)
    return found[-1]


def repair_torn_tail(path: Path) -> int:
    """Cut a partial last line; returns how many bytes were removed."""
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return 0
    keep = data.rfind(b"\n") + 1
    with open(path, "r+b") as fh:
        fh.truncate(keep)
    return len(data) - keep


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    return record if isinstance(record, dict) else None


Entry = tuple[int, "dict[str, Any] | None", bytes]  # (first line, record or None: torn, bytes)


def _jsonl_entries(path: Path) -> list[Entry]:
    return [(number, _parse(line), line if line.endswith(b"\n") else line + b"\n")
            for number, line in enumerate(path.read_bytes().splitlines(keepends=True), 1)
            if line.strip()]


def _yaml_documents(path: Path) -> list[tuple[int, str]]:
    """(first line number, text) of each ``---`` document."""
    docs: list[tuple[int, list[str]]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(True), 1):
        if line.rstrip("\n") == "---" or not docs:
            docs.append((number, [line]))
        else:
            docs[-1][1].append(line)
    return [(start, "".join(lines)) for start, lines in docs]


def _yaml_entries(path: Path) -> list[Entry]:
    """A document that does not parse, or the last one cut off mid-line, is torn."""
    import yaml
    entries: list[Entry] = []
    for start, text in _yaml_documents(path):
        body = text[4:] if text.startswith("---\n") else text
        if not body.strip():
            continue
        try:
            doc = yaml.safe_load(body)
        except yaml.YAMLError:
            doc = None
        whole = isinstance(doc, dict) and text.endswith("\n")
        entries.append((start, doc if whole else None, ("---\n" + body).encode("utf-8")))
    return entries


def read_entries(path: Path, fmt: str) -> list[Entry]:
    return (_jsonl_entries if fmt == "jsonl" else _yaml_entries)(path)


def not_run(record: dict[str, Any]) -> bool:
    """A case the run did not get to (``--budget-usd``): ``--resume`` runs it."""
    return bool(record.get("budget_exceeded"))


def errored(record: dict[str, Any]) -> bool:
    """An execution error (the target failed): ``--retry-errors`` runs it again."""
    return not_run(record) or bool(record.get("error")) \
        or record.get("execution_status") == "execution_error"


def failed(threshold: float | None) -> Callable[[dict[str, Any]], bool]:
    """``--rerun-failed``: an error, or a score under ``threshold`` (else under the record's
    own pass mark: its verdict, AgentV's execution status, or a score below 0.8)."""
    from agentv.evaluators.base import verdict_for

    def check(record: dict[str, Any]) -> bool:
        if errored(record):
            return True
        score = record.get("score")
        score = float(score) if isinstance(score, (int, float)) else 0.0
        if threshold is not None:
            return score < threshold
        if record.get("execution_status"):
            return record["execution_status"] != "ok"
        return (record.get("verdict") or verdict_for(score)) != "pass"
    return check


def _rewrite(path: Path, kept: list[Entry], torn: list[Entry], again: list[Entry]) -> None:
    """Damaged parts go to ``<file>.torn``, records to run again (but placeholders of cases
    that never ran) to ``<file>.replaced``: nothing is lost; the file keeps the rest."""
    for suffix, entries in ((".torn", torn), (".replaced", [e for e in again
                                                           if not not_run(e[1] or {})])):
        if entries:
            with open(path.with_name(path.name + suffix), "ab") as fh:
                fh.write(b"".join((b"%d: " % n + raw.rstrip(b"\n") + b"\n")
                                  if suffix == ".torn" else raw for n, _, raw in entries))
    with open(path, "r+b") as fh:
        fh.write(b"".join(raw for _, _, raw in kept))
        fh.truncate()


def load_finished(path: Path, fmt: str,
                  again: Callable[[dict[str, Any]], bool] = not_run) -> Finished:
    """The records of a results file a run continues; those ``again`` selects (and damaged
    ones) leave the file, so their cases run again and every case keeps one record."""
    repaired = repair_torn_tail(path) if fmt == "jsonl" else 0
    entries = read_entries(path, fmt)
    torn = [e for e in entries if e[1] is None]
    redo = [e for e in entries if e[1] is not None and again(e[1])]
    kept = [e for e in entries if e[1] is not None and not again(e[1])]
    if torn or redo:
        _rewrite(path, kept, torn, redo)
    records = [record for _, record, _ in kept if record is not None]
    return Finished(keys=_keys(records), records=records, repaired_bytes=repaired,
                    torn_lines=[n for n, _, _ in torn], again=len(redo))


def carried_over(source: Path, fmt: str) -> Finished:
    """``--retry-errors``: the records of an earlier results file that need no new run (the
    file is only read); they are written first into the new results file."""
    records = [r for _, r, _ in read_entries(source, fmt) if r is not None]
    kept = [r for r in records if not errored(r)]
    return Finished(keys=_keys(kept), records=kept, carry=kept, again=len(records) - len(kept))


def match_agentv4(finished: Finished, jobs: Sequence[Any]) -> None:
    """AgentV 4.x records carry AgentV's keys only, no case key: each names its test, suite
    and target. The plan's jobs of that test and target in that suite (the eval file's
    ``name``) take them, trial by trial; their keys join ``finished.keys``."""
    from collections import Counter

    from agentv.tasks.load.selection import target_name
    left = Counter((str(r["test_id"]), str(r.get("target") or ""), str(r.get("suite") or ""))
                   for r in finished.records if "test_id" in r and "case_key" not in r)
    named = {(test, target) for test, target, _ in left}
    for job in jobs if left else ():
        test, target = job.case_id, target_name(job.target)
        if (test, target) not in named:
            continue
        key = (test, target, str(job.case.dataset or ""))
        if left[key] > 0:
            left[key] -= 1
            finished.keys.add(job.key)


def _keys(records: list[dict[str, Any]]) -> set[str]:
    return {r["case_key"] for r in records if isinstance(r.get("case_key"), str)}
