"""What a run publishes when its cases are done: the Parquet file (and JUnit XML on
request) next to the results, the summary computed with pandas from that Parquet, and
three kinds of Prefect artifact on the flow run:

* a table: per target × evaluator n, mean, median, std, pass rate, error rate, p50/p95
  latency, tokens, cost;
* a markdown summary with the score histogram (and trials' pass@k / pass^k);
* links to the results files.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from prefect.artifacts import (acreate_link_artifact, acreate_markdown_artifact,
                               acreate_table_artifact)

from tasks.junit import JUNIT_COLUMNS, write_junit
from tasks.plan import EvalOptions
from tasks.redact import redact
from tasks.results import load_results, write_parquet
from tasks.stats import BIN_LABELS, SUMMARY_COLUMNS, breakdown, summarize
from tasks.trials import shorten

log = logging.getLogger("agentv.artifacts")
FRAME_COLUMNS = list(dict.fromkeys(SUMMARY_COLUMNS + JUNIT_COLUMNS))


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


def summary_markdown(summary: dict[str, Any], wall_s: float, files: dict[str, str]) -> str:
    ci = summary.get("ci95")
    lines = ["# agentv run summary", "",
             "| cases | errors | mean | median | std | pass rate | 95% CI of mean | wall |",
             "|---:|---:|---:|---:|---:|---:|---|---:|"]
    if summary["total"]:
        std = "n/a" if summary["std"] is None else f"{summary['std']:.3f}"
        ci_text = f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "n/a"
        lines.append(f"| {summary['total']} | {summary['errors']} | {summary['mean']:.3f} | "
                     f"{summary['median']:.3f} | {std} | {100 * summary['pass_rate']:.1f}% | "
                     f"{ci_text} | {wall_s:.1f}s |")
        lines += ["", "## Score histogram", "", *_histogram_md(summary["histogram"])]
        lines += ["", "Lowest: " + ", ".join(f"`{e}` ({s:.3f})" for e, s in summary["bottom"])]
        lines += _trials_md(summary.get("trials"))
    else:
        lines.append(f"| 0 | 0 | | | | | | {wall_s:.1f}s |")
    lines += ["", "## Files", ""] + [f"- {kind}: `{path}`" for kind, path in files.items()]
    return redact("\n".join(lines))


async def publish_results(results: str | Path, options: EvalOptions,
                          wall_s: float) -> dict[str, Any]:
    """Write Parquet (+ JUnit), summarize from it with pandas, publish the artifacts."""
    files = {"results": str(Path(results).resolve())}
    try:
        parquet = write_parquet(results)
        files["parquet"] = str(parquet.resolve())
    except OSError as err:  # disk full: summarize what the results file holds
        log.warning("could not write the Parquet file: %s", err.strerror or err)
        parquet = Path(results)
    df = load_results(parquet, columns=FRAME_COLUMNS)
    if options.junit:
        try:
            files["junit"] = str(write_junit(df, options.junit).resolve())
        except OSError as err:
            log.warning("could not write the JUnit file: %s", err.strerror or err)
    summary = summarize(df)
    await acreate_table_artifact(table=breakdown(df),
                                 description="agentv: per target × evaluator statistics")
    await acreate_markdown_artifact(markdown=summary_markdown(summary, wall_s, files),
                                    description="agentv run summary")
    for kind, path in files.items():
        await acreate_link_artifact(link=Path(path).as_uri(), link_text=f"{kind}: {Path(path).name}",
                                    description=f"agentv {kind} file")
    summary["files"] = files
    return summary
