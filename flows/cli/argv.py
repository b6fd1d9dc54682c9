"""The command line as typed, made ready for click: AgentV 4.x's ``agentv eval run ...``
spelling (``run`` dropped unless it names a file) and options whose value is optional."""
from __future__ import annotations

import os
from pathlib import Path

OPTIONAL_VALUE_FLAGS = {"--dump-prompts": ".agentv/prompts", "--dump-traces": ".agentv/traces",
                        "--resume": "", "--rerun-failed": ""}
RESULTS_FLAGS = ("--resume", "--rerun-failed")  # their value: an existing results file
EVAL_SUFFIXES = (".yaml", ".yml", ".jsonl")


def _is_results_file(token: str) -> bool:
    """An existing results file: empty (``kill -9`` before the first record) or holding
    ``case_key`` in its first record (JSONL or YAML)."""
    try:
        with open(token, encoding="utf-8", errors="replace") as fh:
            head = fh.read(64 * 1024)
    except OSError:
        return False
    return not head.strip() or "case_key" in head


def _takes_value(flag: str, token: str | None) -> bool:
    if token is None or token.startswith("-"):
        return False
    if flag in RESULTS_FLAGS:  # an existing results file, or one --resume will start
        return _is_results_file(token) or (not os.path.exists(token)
                                           and not any(c in token for c in "*?["))
    return not token.endswith(EVAL_SUFFIXES) and not any(c in token for c in "*?[")


def expand_optional_values(argv: list[str]) -> list[str]:
    """``--dump-prompts`` / ``--dump-traces`` / ``--resume`` / ``--rerun-failed`` take an
    optional value (the last two: the newest results file, ``latest``)."""
    out: list[str] = []
    for i, arg in enumerate(argv):
        out.append(arg)
        if arg in OPTIONAL_VALUE_FLAGS:
            nxt = argv[i + 1] if i + 1 < len(argv) else None
            if not _takes_value(arg, nxt):
                out.append(OPTIONAL_VALUE_FLAGS[arg] or "latest")
    return out


def agentv_argv(argv: list[str]) -> list[str]:
    """``eval run PATHS`` (AgentV 4.42.4's command, the peer benchmark's) is ``eval PATHS``;
    then the optional values filled in."""
    if argv[:2] == ["eval", "run"] and not Path("run").exists():
        argv = ["eval", *argv[2:]]
    return expand_optional_values(argv)
