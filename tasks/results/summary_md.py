"""The run summary as markdown (the Prefect summary artifact): the same numbers and wall
time as the console's SUMMARY, the score histogram, trials, notes and failed gates."""
from __future__ import annotations

from typing import Any

from agentv.tasks.load.redact import redact
from agentv.tasks.results.measures import BIN_LABELS
from agentv.tasks.results.trials import shorten


def _histogram_md(counts: list[int]) -> list[str]:
    top = max(counts) or 1
    rows = ["| score | cases | |", "|---|---:|---|"]
    rows += [f"| {label} | {n} | {'█' * round(20 * n / top)} |"
             for label, n in zip(BIN_LABELS, counts)]
    return rows


def _trials_md(trials: dict[str, Any] | None) -> list[str]:
    if not trials:
        return []
    k = trials["k"]
    lines = ["", "## Trials", "",
             f"{trials['cases']} case(s) × {k} trial(s): pass@1 **{trials['pass_at_1']:.3f}**, "
             f"pass@{k} **{trials['pass_at_k']:.3f}**, pass^{k} **{trials['pass_hat_k']:.3f}**"]
    if trials["disagreeing"]:
        lines.append(f"\nTrials disagree on: {shorten(trials['disagreeing'], 50)}")
    return lines


def _gate_md(summary: dict[str, Any]) -> list[str]:
    failures = summary.get("gate_failures") or []
    if not failures:
        return []
    return ["", "## Quality gate FAILED", ""] + [f"- {reason}" for reason in failures]


def summary_markdown(summary: dict[str, Any], wall_s: float, files: dict[str, str]) -> str:
    ci = summary.get("ci95")
    errors = f"{summary['errors']} / {summary.get('evaluator_errors', 0)}"
    lines = ["# agentv run summary", "",
             "| cases | errors (cases / evaluators) | mean | median | std | pass rate | "
             "95% CI of mean | wall |",
             "|---:|---:|---:|---:|---:|---:|---|---:|"]
    if summary["total"]:
        std = "n/a" if summary["std"] is None else f"{summary['std']:.3f}"
        ci_text = f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "n/a"
        lines.append(f"| {summary['total']} | {errors} | {summary['mean']:.3f} | "
                     f"{summary['median']:.3f} | {std} | {100 * summary['pass_rate']:.1f}% | "
                     f"{ci_text} | {wall_s:.2f}s |")
    else:
        lines.append(f"| 0 | 0 | | | | | | {wall_s:.2f}s |")
    lines += [f"\n> **Note:** {note}" for note in summary.get("notes") or []]
    lines += _gate_md(summary)
    if summary["total"]:
        lines += ["", "## Score histogram", "", *_histogram_md(summary["histogram"])]
        if summary["bottom"]:
            lines += ["", "Lowest: " + ", ".join(f"`{e}` ({s:.3f})" for e, s in summary["bottom"])]
        lines += _trials_md(summary.get("trials"))
    lines += ["", "## Files", ""] + [f"- {kind}: `{path}`" for kind, path in files.items()]
    return redact("\n".join(lines))
