"""The console's SUMMARY block: the run's summary (``Tally.summary()``) as text."""
from __future__ import annotations

from typing import Any

from agentv.providers.printable import printable
from agentv.tasks.results.measures import BIN_LABELS
from agentv.tasks.results.trials import shorten


def format_summary(summary: dict[str, Any], wall_s: float | None = None) -> str:
    lines = ["", "SUMMARY", f"  total cases: {summary['total']}   errors: cases "
             f"{summary['errors']}, evaluators {summary.get('evaluator_errors', 0)}"]
    lines += [f"  note: {printable(note)}" for note in summary.get("notes") or []]
    if summary["total"]:
        std = "n/a" if summary["std"] is None else f"{summary['std']:.3f}"
        lines.append(f"  mean: {summary['mean']:.3f}   median: {summary['median']:.3f}   "
                     f"min: {summary['min']:.3f}   max: {summary['max']:.3f}   std: {std}")
        lines.append("  histogram:")
        width = max(summary["histogram"]) or 1
        for lbl, n in zip(BIN_LABELS, summary["histogram"]):
            lines.append(f"    {lbl}  {'#' * round(20 * n / width):<20} {n}")
        lines.append("  top: " + ", ".join(f"{printable(e)} ({s:.3f})"
                                           for e, s in summary["top"]))
        if summary["bottom"]:
            lines.append("  bottom: " + ", ".join(f"{printable(e)} ({s:.3f})"
                                                  for e, s in summary["bottom"]))
        lines.append(_pass_line(summary))
        lines.extend(_trial_lines(summary.get("trials")))
        if summary.get("input_tokens") or summary.get("output_tokens"):
            cost = summary.get("cost_usd")
            lines.append(f"  tokens: {summary['input_tokens']} in / {summary['output_tokens']} out"
                         f"   cost: {'n/a' if cost is None else f'${cost:.6f}'}"
                         f"   judge cost: ${summary.get('judge_cost_usd') or 0:.6f}")
    if wall_s is not None:
        lines.append(f"  wall time: {wall_s:.2f}s")
    lines += [f"  QUALITY GATE FAILED: {printable(reason)}"
              for reason in summary.get("gate_failures") or []]
    return "\n".join(lines)


def _pass_line(summary: dict[str, Any]) -> str:
    ci = summary.get("ci95")
    ci_text = f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "n/a"
    return f"  pass rate: {100 * summary.get('pass_rate', 0):.1f}%   95% CI of mean: {ci_text}"


def _trial_lines(trials: dict[str, Any] | None) -> list[str]:
    if not trials:
        return []
    k = trials["k"]
    count = str(k) if trials["max_trials"] == k else f"{k}-{trials['max_trials']}"
    lines = [f"  trials: {trials['cases']} case(s) x {count} trials   pass@1: "
             f"{trials['pass_at_1']:.3f}   pass@{k}: {trials['pass_at_k']:.3f}   "
             f"pass^{k}: {trials['pass_hat_k']:.3f}"]
    if trials["disagreeing"]:
        lines.append("  trials disagree: " + printable(shorten(trials["disagreeing"])))
    return lines


def format_failures(summary: dict[str, Any], top: int) -> list[str]:
    """The FAILED block: the ``top`` worst failed or errored cases (errors first, then the
    lowest scores) and why each failed: the case's error, else its failing evaluator and
    that evaluator's reasoning or error."""
    failures = summary.get("failures") or []
    if not failures or top <= 0:
        return []
    lines = ["", f"FAILED ({summary.get('counts') or len(failures)}; worst first)"]
    for f in failures[:top]:
        score = "n/a" if f.get("score") is None else f"{f['score']:.3f}"
        trial = f" trial {f['trial']}" if f.get("trial") else ""
        lines.append(f"  {printable(f['eval_id'])} [{printable(f['target'])}]{trial}: "
                     f"{f['verdict']} {score} - {printable(f['reason'])}")
    shown = min(top, len(failures))
    hidden = summary.get("failed_total", len(failures)) - shown
    if hidden > 0:
        lines.append(f"  ... and {hidden} more (--show-failures N shows more)")
    return lines
