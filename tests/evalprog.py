"""The typed program the EvalLoop tests run, in worker processes (``agentv worker --program
tests.evalprog:program``) and in-process: a dataclass input, an int answer, a traced
callable target, a session-aware evaluator.

``a < 0`` always raises. The sample ``slow`` sleeps on its first delivery when
``EVALPROG_MARKERS`` names a folder: it writes ``slow.pid`` there first, so a test can
``kill -9`` the worker in the middle of it; the redelivered sample finds the file and answers.
``EVALPROG_LATENCY_MS`` makes every call sleep that long (the EvalLoop benchmark).
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from agentv.evaluators import all_of, exact_match, tool_called
from agentv.tasks.api.callable_target import TracedOutput
from agentv.tasks.api.evalloop import EvalProgram


@dataclass(frozen=True)
class Problem:
    a: int
    b: int
    label: str = ""


def add(problem: Problem) -> TracedOutput:
    if problem.a < 0:
        raise RuntimeError(f"negative operand {problem.a}")
    latency_ms = float(os.environ.get("EVALPROG_LATENCY_MS") or 0)
    if latency_ms:
        time.sleep(latency_ms / 1000)
    markers = os.environ.get("EVALPROG_MARKERS")
    if problem.label == "slow" and markers:
        marker = Path(markers) / "slow.pid"
        if not marker.exists():
            marker.write_text(str(os.getpid()))
            time.sleep(120)  # killed here
    answer = problem.a + problem.b
    return TracedOutput(answer, trace=[{"tool": "add", "input": {"a": problem.a, "b": problem.b},
                                        "output": answer}])


program = EvalProgram(evaluator=all_of(exact_match, tool_called("add")), target=add,
                      input_type=Problem, expected_type=int)
