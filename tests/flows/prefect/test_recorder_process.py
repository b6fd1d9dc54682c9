"""Which runs get a recorder process (their stages run in the ``agentv`` process), and a
recorder whose run never began goes."""
from __future__ import annotations

import subprocess
import sys

from agentv.flows.prefect.recorder_process import discard, mirrored


def test_runs_whose_stages_prefects_engine_runs_have_no_recorder():
    assert mirrored(None, None) and mirrored("default", "batch")
    assert not mirrored("dask", None) and not mirrored(None, "case")


def test_a_discarded_recorder_is_gone():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    discard(proc)
    assert proc.returncode is not None
    discard(None)  # no recorder: nothing to do
