"""What a record does not hold about its case, read back from the eval file its
``case_key`` names (when it can still be read): the expected outcome, the reference answer
and the files attached to the input (guidelines marked). And the line diff of one case's
answers on two runs or targets (``difflib``)."""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class CaseContext:
    expected_outcome: str = ""
    reference_answer: str = ""
    guidelines: list[str] = field(default_factory=list)
    attachments: list[str] = field(default_factory=list)


def _text(message: Any) -> str:
    return "\n".join(s.text for s in message.segments if s.kind == "text")


def _context(case: Any) -> CaseContext:
    files = [s for m in case.input_messages for s in m.segments if s.kind == "file"]
    reference = _text(case.expected_messages[-1]) if case.expected_messages else ""
    return CaseContext(case.expected_outcome, reference,
                       [s.display or s.path or "" for s in files if s.is_guideline],
                       [s.display or s.path or "" for s in files if not s.is_guideline])


def case_contexts(case_keys: Any) -> dict[str, CaseContext]:
    """case file::eval_id → its context, from the eval files still on disk."""
    from agentv.providers.errors import ConfigError
    from agentv.tasks.load.boundary import allowed_roots
    from agentv.tasks.load.discover import repo_root
    from agentv.tasks.load.files import load_suite
    found: dict[str, CaseContext] = {}
    names = {str(k).split("::")[0] for k in case_keys if isinstance(k, str) and "::" in k}
    for name in sorted(names):
        path = next((p for p in (Path(name), repo_root() / name) if p.is_file()), None)
        try:
            suite = load_suite(path, warn=lambda _: None,
                               allowed=allowed_roots()) if path else None
        except (ConfigError, OSError, ValueError):
            suite = None
        for case in suite.cases if suite else []:
            found[f"{name}::{case.id}"] = _context(case)
    return found


def diff_lines(theirs: Any, mine: Any, their_label: str, my_label: str) -> list[str]:
    """The unified line diff of two answers, theirs → mine (``---`` theirs, ``+++`` mine)."""
    a, b = str(theirs or ""), str(mine or "")
    return list(difflib.unified_diff(a.splitlines(), b.splitlines(), their_label, my_label,
                                     lineterm="", n=2))
