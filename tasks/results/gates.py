"""Quality gates: when a finished run counts as failed (exit 1, Failed flow run).

Three gates, each optional: ``fail_under`` (the mean score must reach it),
``min_pass_rate`` (the share of cases with verdict ``pass``) and ``fail_on_error`` (any
case error or evaluator error fails the run; not set, a case error — the target gave no
answer — fails the run, as AgentV's execution errors do; ``--no-fail-on-error`` allows it).
Set on the command line (``--fail-under 0.8 --min-pass-rate 0.9 --fail-on-error``),
in an eval file's ``execution`` block (``fail_under: 0.8``; applies to that file's cases)
or as nightly deployment parameters. ``check_gates`` returns one reason per failed gate.
"""
from __future__ import annotations

from typing import Any, Callable

from agentv.tasks.load.gates import Gates
from agentv.tasks.results.tally import Tally


def check_gates(summary: dict[str, Any], gates: Gates, label: str = "") -> list[str]:
    """One line per failed gate, e.g. ``mean score 0.412 < fail-under 0.800``."""
    prefix = f"{label}: " if label else ""
    reasons = []
    if not summary.get("total"):
        return [f"{prefix}no case ran"] if gates.active else []
    if gates.fail_under is not None and summary["mean"] < gates.fail_under:
        reasons.append(f"{prefix}mean score {summary['mean']:.3f} < fail-under "
                       f"{gates.fail_under:.3f}")
    if gates.min_pass_rate is not None and summary["pass_rate"] < gates.min_pass_rate:
        reasons.append(f"{prefix}pass rate {100 * summary['pass_rate']:.1f}% < min-pass-rate "
                       f"{100 * gates.min_pass_rate:.1f}%")
    errors = summary.get("errors", 0) + summary.get("evaluator_errors", 0)
    if gates.fail_on_error and errors:
        reasons.append(f"{prefix}{summary.get('errors', 0)} case error(s) and "
                       f"{summary.get('evaluator_errors', 0)} evaluator error(s) "
                       "with fail-on-error")
    elif gates.fail_on_error is None and not label and summary.get("errors"):
        reasons.append(f"execution errors: {summary['errors']} of {summary['total']} case(s) "
                       "errored (--no-fail-on-error lets a run with errors pass)")
    return reasons


def gate_failures(tally: Tally, summary: dict[str, Any], run_gates: Gates,
                  suite_gates: list[tuple[str, str, Gates]]) -> list[str]:
    """Reasons the run fails its gates: the run-wide gates against the whole ``summary``,
    each eval file's ``execution`` gates against that file's cases as the ``tally`` counted
    them. ``suite_gates`` holds (label, case-key file prefix, gates)."""
    return failed_gates(summary, run_gates, suite_gates, tally.suite_summary)


def failed_gates(summary: dict[str, Any], run_gates: Gates,
                 suite_gates: list[tuple[str, str, Gates]],
                 suite_summary: Callable[[str], dict[str, Any] | None]) -> list[str]:
    """``gate_failures`` with each eval file's summary from ``suite_summary(file)``."""
    reasons = check_gates(summary, run_gates)
    for label, prefix, gates in suite_gates:
        part = suite_summary(prefix) if gates.active else None
        if part is not None:
            reasons += check_gates(part, gates, label)
    return reasons
