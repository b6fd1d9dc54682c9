"""The console's progress: counts of pass, fail and error with an ETA (a unit), and the
progress line of a real `agentv eval` on a pseudo-terminal from the first second (what it
waits for before any case ran)."""
from __future__ import annotations

import re

import pytest

from tests.flows.artifacts.test_gates_ui import EXAMPLE_EVAL


def test_console_progress_counts_and_phases():
    import io

    from rich.console import Console

    from agentv.flows.cli.console import WAITING, ProgressBar, format_problems
    buf = io.StringIO()
    bar = ProgressBar(enabled=True)
    bar.begin(Console(file=buf, force_terminal=True, width=160))
    plan = type("P", (), {"jobs": [1, 2, 3]})()
    bar.start(plan)
    bar.advance({"score": 0.9})
    bar.advance({"score": 0.1})
    bar.advance({"score": 0.0, "error": "boom"})
    assert bar.description() == "cases: 1 pass, 1 fail, 1 error"
    bar._progress.refresh()
    bar.stop()
    assert "3/3" in buf.getvalue() and "eta" in buf.getvalue()
    assert WAITING["start"] and "Prefect" in WAITING["plan"]
    lines = format_problems("ERRORS", [{"file": "a.yaml", "eval_id": "c1", "target": "t",
                                        "evaluator": "py", "error": "boom"}])
    assert lines == ["", "ERRORS", "  a.yaml:c1:py [t]: boom"]


@pytest.mark.slow
def test_progress_line_on_a_terminal_from_the_first_second(prefect_api, tmp_path):
    """`agentv eval` with stderr on a pseudo-terminal: the progress line says what it waits
    for before any case ran, then shows cases done, ETA and pass/fail/error counts."""
    import os
    import pty
    import select
    import subprocess
    import sys
    import time

    from tests.conftest import ROOT
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    proc = subprocess.Popen([sys.executable, "-m", "agentv", "eval", str(EXAMPLE_EVAL),
                             "--out", str(tmp_path / "r.jsonl")],
                            stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL,
                            env=env, cwd=ROOT)
    os.close(slave)
    seen, first_at, started = b"", None, time.monotonic()
    while True:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            if first_at is None and b"loading eval files" in chunk + seen[-200:]:
                first_at = time.monotonic() - started
            seen += chunk
        elif proc.poll() is not None:
            break
    proc.wait(timeout=60)
    os.close(master)
    text = seen.decode(errors="replace")
    assert proc.returncode == 0, text[-2000:]
    assert first_at is not None and first_at < 10, text[:2000]  # before Prefect is imported
    assert text.index("loading eval files") < text.index("starting the Prefect flow run")
    assert "starting the Prefect flow run" in text
    assert re.search(r"cases: \d+ pass, \d+ fail, 0 error", text), text[-2000:]
    assert "eta" in text and "/3" in text
