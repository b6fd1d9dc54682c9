"""Which generation an eval file is: AgentV 4.x (``tests:``) or agentv-eval-v2 (``evalcases:``)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

FORMAT = "agentv-4"  # EvalCase.format / EvalSuite.format of a 4.x file
FORMAT_KEY = "record_format"  # the in-memory record's mark of a 4.x test (never written)
_NAME = re.compile(r"(?:^|\.)eval\.ya?ml$", re.IGNORECASE)
_TESTS_LINE = re.compile(r"^tests\s*:", re.MULTILINE)


def is_v4_data(data: Any) -> bool:
    """A mapping with ``tests`` and no v2 marker (``evalcases``, ``$schema``)."""
    return (isinstance(data, dict) and "tests" in data and "evalcases" not in data
            and "$schema" not in data)


def has_v4_name(path: Path) -> bool:
    """``*.eval.yaml`` / ``eval.yaml`` / ``EVAL.yaml`` (any case, ``.yml`` too)."""
    return bool(_NAME.search(path.name))


def looks_v4_text(head: str) -> bool:
    """The file's text has a top-level ``tests:`` key (a directory walk's cheap test)."""
    return bool(_TESTS_LINE.search(head)) and "evalcases" not in head


V2_CASE_KEYS = frozenset({"expected_outcome", "input_messages", "expected_messages",
                          "evaluators", "outcome"})
V4_CASE_KEYS = frozenset({"criteria", "assertions", "assert", "input_files", "vars"})


def is_v4_cases(cases: list) -> bool:
    """JSONL tests written in the 4.x shape (``criteria`` / ``assertions``, no v2 key)."""
    keys = {k for c in cases if isinstance(c, dict) for k in c}
    return bool(keys & V4_CASE_KEYS) and not keys & V2_CASE_KEYS


def is_v4_tests_file(path: Path) -> bool:
    """A JSONL file whose first test is written in the 4.x shape."""
    import json
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as fh:
            first = json.loads(fh.readline(65536) or "null")
    except (OSError, ValueError):
        return False
    return isinstance(first, dict) and is_v4_cases([first])
