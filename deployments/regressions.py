"""The nightly comparison as the Prefect UI shows it: a table artifact of the regressed
cases (``agentv-nightly-regressions``), worst Δ first, each row linking the case's page in
the eval viewer (``agentv view``: flows/prefect/viewer.py), and the comparison's markdown
(``agentv-nightly-compare``) with the same cases as a markdown table whose case ids are
links, the viewer's compare page and the significance line — no code block to cut at the
right edge.

A regressed case is a matched case whose outcome is a loss (Δ ≤ -threshold, as
``agentv compare`` classifies it); the run's verdict stays the significance gate's.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from agentv.flows.prefect.viewer import ViewPage, view_page
from agentv.tasks.results.case_markdown import inline

REGRESSIONS_KEY = "agentv-nightly-regressions"
LISTED = 200  # regressed cases in the markdown (the table artifact lists them all)


def regressed(comparison: dict[str, Any]) -> list[dict[str, Any]]:
    """The matched cases that lost, worst Δ first (then by case id, target, trial)."""
    losses = [m for m in comparison["matched"] if m["outcome"] == "loss"]
    return sorted(losses, key=lambda m: (m["delta"], str(m["eval_id"]),
                                         str(m.get("target") or ""), m.get("trial", 0)))


def regression_rows(comparison: dict[str, Any], page: ViewPage) -> list[dict[str, Any]]:
    """The table artifact's rows: case, target, trial, both scores, Δ, the viewer page."""
    return [{"case": m["eval_id"], "target": m.get("target") or "",
             "trial": m.get("trial", 0), "baseline": round(m["score1"], 3),
             "this run": round(m["score2"], 3), "Δ": round(m["delta"], 3),
             "viewer": page.case_url(m["eval_id"], m.get("target"), m.get("trial", 0))}
            for m in regressed(comparison)]


def _significance(result: dict[str, Any]) -> str:
    sig = result["significance"]
    return (f"- mean Δ {result['summary']['meanDelta']:+.3f}, 95% CI {sig['ci95']}, "
            f"McNemar p={sig['mcnemar']['p_value']:.3f} ({sig['mcnemar']['pass_to_fail']} "
            f"pass→fail, {sig['mcnemar']['fail_to_pass']} fail→pass)")


def _viewer_line(page: ViewPage, baseline: str) -> str:
    """The viewer's pages of this run (and against the baseline, when their ids differ:
    nightly runs all write ``results.jsonl``)."""
    start = "" if page.live else f" (start it: `{page.command}`)"
    if Path(baseline).stem == page.run_id:
        return f"- in the viewer: [this run]({page.url}){start}"
    return f"- in the viewer: [this run against its baseline]({page.compare_url(baseline)})" \
        + start


def comparison_markdown(result: dict[str, Any], baseline: str, results: str) -> str:
    """The comparison's verdict, the viewer's compare page and the regressed cases."""
    sig, page, summary = result["significance"], view_page(results), result["summary"]
    verdict = "**REGRESSION**" if sig["regression"] else "no significant regression"
    lines = [f"# Nightly regression check: {verdict}", "",
             f"- baseline: `{baseline}`", f"- this run: `{results}`", _significance(result),
             f"- {summary['matched']} case(s) matched: {summary['wins']} win(s), "
             f"{summary['losses']} loss(es), {summary['ties']} tie(s)",
             _viewer_line(page, baseline), ""]
    rows = regression_rows(result, page)
    if not rows:
        return "\n".join(lines + ["No regressed case."])
    lines += ["## Regressed cases, worst first", "",
              "| case | target | trial | baseline | this run | Δ |", "|---|---|---|---|---|---|"]
    lines += [f"| [{inline(r['case'])}]({r['viewer']}) | {inline(r['target'])} | {r['trial']} | "
              f"{r['baseline']:.3f} | {r['this run']:.3f} | {r['Δ']:+.3f} |" for r in rows[:LISTED]]
    if len(rows) > LISTED:
        lines += ["", f"… and {len(rows) - LISTED} more: see the `{REGRESSIONS_KEY}` table."]
    return "\n".join(lines)


async def publish_regressions(result: dict[str, Any], results: str | Path) -> Any:
    """The regressed cases' table artifact, each row linking its viewer case page."""
    from prefect.artifacts import acreate_table_artifact
    page = view_page(results)
    rows = regression_rows(result, page)
    return await acreate_table_artifact(
        key=REGRESSIONS_KEY, table=rows or [{"case": "no regressed case"}],
        description=f"agentv nightly: {len(rows)} regressed case(s), worst Δ first, each "
                    f"linking its page in the viewer ({page.base}"
                    + ("" if page.live else f"; start it: `{page.command}`") + ")")
