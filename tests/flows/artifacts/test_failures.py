"""The failed cases' log lines: a heading with the counts and the run's viewer page, then
one line per failed case with its reason, worst first, bounded."""
from __future__ import annotations

from agentv.flows.artifacts import failures as module
from agentv.flows.artifacts.failures import log_lines
from agentv.tasks.results.failures import Failures


def _failures(n: int, passed: int = 1) -> Failures:
    f = Failures()
    for _ in range(passed):
        f.add({"eval_id": "ok", "target": "t", "verdict": "pass", "score": 1.0}, [])
    for i in range(n):
        f.add({"eval_id": f"c{i}", "target": "t", "verdict": "fail", "score": i / 100},
              [{"name": "says-yes", "verdict": "fail", "score": 0, "reasoning": f"no yes {i}"}])
    return f


def test_the_heading_then_each_failed_case_with_its_reason():
    lines = log_lines(_failures(2), "1 pass · 2 fail · 0 error", "http://v/run/r")
    assert lines[0] == ("2 failed case(s) (1 pass · 2 fail · 0 error), worst first; "
                        "every case: http://v/run/r")
    assert lines[1] == "FAILED c0 [t] trial 0: fail score 0.000 — says-yes (0.00 fail): no yes 0"
    assert lines[2].startswith("FAILED c1 [t] trial 0: fail score 0.010 — ")


def test_no_failure_logs_nothing():
    assert log_lines(_failures(0)) == []


def test_past_the_bound_one_line_says_how_many_more(monkeypatch):
    monkeypatch.setattr(module, "LOGGED", 3)
    lines = log_lines(_failures(5))
    assert len(lines) == 5 and lines[-1] == "… and 2 more failed case(s)"
    assert lines[0].startswith("5 failed case(s) (1 pass · 5 fail · 0 error")
