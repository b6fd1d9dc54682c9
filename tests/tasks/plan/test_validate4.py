"""``agentv validate`` on AgentV 4.42.4's 110 example suites (shared/agentv4-examples): all
but three validate; those three use what agentv does not have, and say so."""
from __future__ import annotations

import os

import pytest

from agentv.tasks.plan.validate import validate_paths
from tests.conftest import SHARED

ROOT = SHARED / "agentv4-examples" / "v4.42.4"
NOT_SUPPORTED = {  # file → the feature agentv lacks, as the error names it
    "features/copilot-log-eval/evals/skill-trigger.EVAL.yaml": "unknown provider 'copilot-log'",
    "showcase/trace-evaluation/evals/coding-agent-replay.eval.yaml": "unknown provider 'replay'",
    # they name no target and their targets files define no 'default': a run cannot start
    "features/preprocessors/evals/dataset.eval.yaml": "unknown target 'default'",
    "showcase/trace-evaluation/evals/transcript-import.eval.yaml": "unknown target 'default'",
    # its code-grader's script (graders/transcript-quality.ts) is not in the snapshot
    "features/import-claude/evals/transcript-check.EVAL.yaml": "script file not found",
}

# a folder walk checks the targets files too: a provider agentv lacks is their error
WALK_ERRORS = {
    "features/copilot-log-eval/.agentv/targets.yaml": "unknown provider 'copilot-log'",
    "features/preprocessors/evals/dataset.eval.yaml": "unknown target 'default'",
    "showcase/trace-evaluation/.agentv/targets.yaml": "unknown provider 'replay'",
    "showcase/trace-evaluation/evals/transcript-import.eval.yaml": "unknown target 'default'",
    # its code-grader's script (graders/transcript-quality.ts) is not in the snapshot
    "features/import-claude/evals/transcript-check.EVAL.yaml": "script file not found",
}


# This snapshot lacks AgentV's repository-root .agentv/targets.yaml: a suite naming one of its
# targets cannot run here, and validate says so (issue 39: no "valid, then the run fails")
NO_TARGETS = "no targets.yaml found"


def with_tools(monkeypatch, tmp_path) -> None:
    """bun and uv on PATH (stubs), as on a machine that runs these examples: without them
    a .ts assertion or a uv-run grader is an error at validate time."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("bun", "uv"):
        (tools / name).write_text("#!/bin/sh\nexit 0\n")
        (tools / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:{os.environ.get('PATH', '')}")


def suites() -> list[str]:
    return sorted(str(p) for p in (ROOT / "examples").rglob("*.y*ml")
                  if "\ntests:" in "\n" + p.read_text(encoding="utf-8"))


@pytest.mark.skipif(not ROOT.is_dir(), reason="shared/agentv4-examples absent")
def test_agentv4_examples_validate_but_the_unsupported_three(monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    with_tools(monkeypatch, tmp_path)
    files = suites()
    assert len(files) == 110
    failed = {}
    for path in files:
        report = validate_paths([path])
        if report.errors and NO_TARGETS not in report.errors[0]:
            failed[path.split("/examples/", 1)[1]] = report.errors[0]
    assert sorted(failed) == sorted(NOT_SUPPORTED)
    for path, error in failed.items():
        assert NOT_SUPPORTED[path] in error


@pytest.mark.skipif(not ROOT.is_dir(), reason="shared/agentv4-examples absent")
def test_validating_the_examples_folder_checks_what_agentv_picks(monkeypatch, tmp_path):
    """A folder walk checks eval files as AgentV 4.42.4 discovers them, with targets and
    config files: not its results (sample-runs' index.jsonl), fixture JSONL files or other
    YAML (governance's .ai-register.yaml)."""
    monkeypatch.chdir(ROOT)
    with_tools(monkeypatch, tmp_path)
    report = validate_paths([str(ROOT / "examples")])
    errors = sorted(e.split("/examples/", 1)[1] for e in report.errors if NO_TARGETS not in e)
    assert sorted({e.split(":", 1)[0] for e in errors}) == sorted(WALK_ERRORS)
    for error in errors:  # every error of a file, each its reason
        assert WALK_ERRORS[error.split(":", 1)[0]] in error, error
    assert not any("conversation" in e for e in errors)  # mode: conversation validates
    skipped = "\n".join(report.skipped)
    for path in ("trend/sample-runs/2026-03-01T10-00-00-000Z/index.jsonl",
                 "offline-grader-benchmark/fixtures/setup-a.raw.jsonl",
                 "ai-register/.ai-register.yaml"):
        assert path in skipped
    checked = "\n".join(report.checked)
    assert "basic-jsonl/evals/dataset.jsonl" not in checked  # 4.x tests: its suite runs it
    assert "workspace-artifact/evals/eval.yaml" in checked
