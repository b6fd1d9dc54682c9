"""Consent made visible (issue #38): what a run's sandbox allowed beyond its defaults — the
sandbox off (``--no-sandbox``, a target's ``sandbox: off``) and readable roots widened beyond
the suites' own (``--allow-path``, ``allowed_paths``), workspace templates holding symlinks
that lead outside them (``providers.process.overlay.LEFT``, warned when copied) — as one
warning line in the log and a note in the run summary (the mode is also the run's Prefect
tag ``sandbox:on`` / ``sandbox:off``: ``flows.prefect.naming.run_tags``)."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from agentv.providers.process import overlay, sandbox

log = logging.getLogger("agentv.sandbox")


def sandbox_notes(plan: Any) -> list[str]:
    """The summary's notes (empty for a run in the default sandbox); each also logged once
    as a warning."""
    notes = []
    if not sandbox.enabled():
        notes.append("sandbox: off (--no-sandbox): every program ran unconfined, with the "
                     "user's files and network")
    else:
        off = sorted(name for name, target in (getattr(plan, "targets", None) or {}).items()
                     if target.setting("sandbox") in (False, "off"))
        if off:
            notes.append(f"sandbox: off for target(s) {', '.join(off)} (sandbox: off): "
                         "their programs ran unconfined")
        wider = widened(plan)
        if wider:
            notes.append(f"sandbox widened: readable beyond the suites' roots: "
                         f"{', '.join(wider)} (--allow-path / allowed_paths)")
    for note in notes:
        log.warning("%s", note)
    if overlay.LEFT:  # each link was warned about when its template was copied
        links = ", ".join(f"{k} -> {v}" for k, v in sorted(overlay.LEFT.items())[:5])
        notes.append(f"sandbox: {len(overlay.LEFT)} symlink(s) in workspace templates lead "
                     f"outside them: {links}")
    return notes


def widened(plan: Any) -> list[str]:
    """The readable folders that are not a suite's own root."""
    from agentv.tasks.load.boundary import suite_root
    roots = {str(Path(suite_root(s.path)).resolve())
             for s in getattr(plan, "suites", None) or []}
    return [p for p in sandbox.run_readable() if p not in roots]
