"""The oracle's generator (oracle_suites.py) writes suites agentv loads — every one AgentV
4.42.4 runs — without an error (fast: no program is started)."""
from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from agentv.tasks.load.files import load_suite
from tests.compat.oracle_run import write_batch
from tests.compat.oracle_suites import suites


@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(suites())
def test_generated_suites_load(batch):
    with tempfile.TemporaryDirectory() as tmp:
        for name in write_batch(Path(tmp), batch):
            suite = load_suite(Path(tmp) / name, warn=lambda _w: None)
            made = next(s for s in batch if f"{s.name}.eval.yaml" == name)
            assert len(suite.cases) <= len(made.tests)
