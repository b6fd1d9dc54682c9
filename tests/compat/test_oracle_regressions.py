"""Every class of disagreement the oracle (test_oracle.py) found, kept as a small explicit
suite in tests/compat/oracle_regressions/ (each file says what it found), run through the real
AgentV 4.42.4 and agentv and compared test by test."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.compat.oracle_run import AGENT, GRADER, TARGETS, count_tests, disagreements

pytestmark = pytest.mark.slow  # starts the real AgentV 4.42.4 and agentv

KEPT = Path(__file__).parent / "oracle_regressions"


def test_kept_examples_score_as_agentv4(prefect_api, tmp_path):
    folder = tmp_path / "kept"
    shutil.copytree(KEPT, folder)
    for helper in (AGENT, GRADER):
        shutil.copy(helper, folder / helper.name)
    (folder / "targets.yaml").write_text(TARGETS, encoding="utf-8")
    files = sorted(p.name for p in folder.glob("*.eval.yaml"))
    found = disagreements(folder, files)
    assert found == [], json.dumps(found, ensure_ascii=False, indent=1)
    answers = json.loads((KEPT / "answers.json").read_text(encoding="utf-8"))
    skipped = {"values-only-suite-assertions"}  # AgentV skips it; so does agentv
    assert count_tests(folder) == len(answers) - len(skipped)
