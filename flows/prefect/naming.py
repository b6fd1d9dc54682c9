"""How a run shows up in the Prefect UI: its flow-run name, its tags and its artifact keys.

A run is named after its suites × targets with a timestamp (``example × default ·
2026-11-22 15:46``) and tagged ``agentv``, ``suite:NAME``, ``target:NAME``,
``dataset:NAME`` and ``sandbox:on`` / ``sandbox:off`` (the run's OS sandbox). Artifact keys
are stable per suite × target (Prefect keys: lowercase letters, digits and dashes), so the
UI's Artifacts page shows each one's history across runs: ``agentv-cases-<suite>-<target>``,
``agentv-summary-<suites>-<targets>``, …
"""
from __future__ import annotations

import hashlib
import re
from datetime import datetime
from pathlib import Path
from typing import Iterable

MAX_KEY = 90


def suite_name(path: str) -> str:
    """``evals/example.test.yaml`` → ``example``."""
    name = Path(path).name
    for suffix in (".yaml", ".yml", ".jsonl"):
        name = name.removesuffix(suffix)
    return name.removesuffix(".test")


def slug(text: str) -> str:
    return re.sub(r"-+", "-", re.sub(r"[^a-z0-9]+", "-", str(text).lower())).strip("-") or "x"


def _joined(names: Iterable[str], limit: int = 3) -> str:
    names = sorted(dict.fromkeys(names))
    if len(names) <= limit:
        return "+".join(names)
    return "+".join(names[:limit]) + f"+{len(names) - limit} more"


def artifact_key(kind: str, suites: Iterable[str], targets: Iterable[str]) -> str:
    """``agentv-<kind>-<suites>-<targets>``, shortened with a digest past MAX_KEY chars."""
    suites, targets = sorted(set(suites)), sorted(set(targets))
    key = slug(f"agentv-{kind}-{'-'.join(suites)}-{'-'.join(targets)}")
    if len(key) <= MAX_KEY:
        return key
    digest = hashlib.sha1(key.encode()).hexdigest()[:8]
    return f"{key[:MAX_KEY - 9].rstrip('-')}-{digest}"


def run_name(suites: Iterable[str], targets: Iterable[str], now: datetime | None = None) -> str:
    stamp = (now or datetime.now()).strftime("%Y-%m-%d %H:%M:%S")
    return f"{_joined(suites)} × {_joined(targets)} · {stamp}"


def run_tags(suites: Iterable[str], targets: Iterable[str], datasets: Iterable[str]) -> list[str]:
    tags = ["agentv"]
    tags += [f"suite:{s}" for s in sorted(set(suites))]
    tags += [f"target:{t}" for t in sorted(set(targets))]
    tags += [f"dataset:{d}" for d in sorted(set(datasets)) if d]
    from agentv.providers.process.sandbox import enabled  # the run's, once its plan is made
    return [*tags, "sandbox:on" if enabled() else "sandbox:off"]


def plan_labels(plan) -> tuple[list[str], list[str], list[str]]:
    """(suite names, target names, datasets) of a validated plan's jobs."""
    suites = [suite_name(s.path) for s in plan.suites]
    from agentv.tasks.load.selection import target_name  # a key "name @ targets file": its name
    targets = sorted({target_name(job.target) for job in plan.jobs}) or sorted(plan.targets)
    datasets = [s.dataset for s in plan.suites]
    return suites, targets, datasets
