"""How a run's flow run ends (``final_state``): the counts in its message; a failed gate
makes it Failed; failed or errored cases without a gate name it "Completed with failures"
and tag it ``has-failures``; all passing is a plain Completed. (The stages themselves run
in every end-to-end test: tests/flows/test_run_states.py reads the states back.)"""
from __future__ import annotations

from agentv.flows.stages import final_state


def _outcome(*gates: str) -> dict:
    return {"gate_failures": list(gates)}


def test_all_passing_is_completed_with_the_counts():
    final = final_state({"counts": "3 pass · 0 fail"}, _outcome())
    assert (final.failed, final.name, final.message, final.tags) == \
        (False, None, "3 pass · 0 fail", ())


def test_failures_without_a_gate_complete_with_failures_and_a_tag():
    final = final_state({"counts": "2 pass · 1 fail", "failures": 1}, _outcome())
    assert (final.failed, final.name, final.tags) == \
        (False, "Completed with failures", ("has-failures",))


def test_a_failed_gate_fails_the_run_naming_the_gates_and_the_counts():
    outcome = _outcome("fail-under 0.5: mean 0.3", "min-pass-rate")
    final = final_state({"counts": "1 pass · 2 fail", "failures": 2}, outcome)
    assert final.failed and final.tags == ("has-failures",) and final.outcome is outcome
    assert final.message == ("quality gate failed: fail-under 0.5: mean 0.3; min-pass-rate "
                             "(1 pass · 2 fail)")
