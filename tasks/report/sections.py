"""The report's sections: runs summary, plots, the per-case matrix, breakdowns, trials
and the case drill-downs."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from agentv.providers.printable import html_text as escape
from agentv.tasks.report.case_context import CaseContext, answer_diff
from agentv.tasks.report.cases import MAX_CASES, case_block
from agentv.tasks.report.html import (
    bar_chart,
    filter_box,
    fmt,
    grouped_bar_chart,
    table,
)
from agentv.tasks.report.runs import Run, matches_by_target
from agentv.tasks.results.measures import BIN_LABELS, OVERALL
from agentv.tasks.results.trials import case_table


def runs_summary(runs: list[Run], summaries: list[dict[str, Any]]) -> str:
    rows = []
    for run, s in zip(runs, summaries):
        ci = s.get("ci95")
        rows.append({"run": run.label, "cases": s["total"], "mean": s.get("mean"),
                     "95% CI": f"{ci[0]:.3f}–{ci[1]:.3f}" if ci else "n/a",
                     "pass rate": s.get("pass_rate"), "case errors": s["errors"],
                     "evaluator errors": s.get("evaluator_errors", 0),
                     "tokens in": s.get("input_tokens"), "tokens out": s.get("output_tokens"),
                     "cost_usd": s.get("cost_usd")})
    cards = ""
    if len(runs) == 1:
        s = summaries[0]
        items = [("cases", s["total"]), ("mean score", fmt(s.get("mean"))),
                 ("pass rate", f"{100 * s.get('pass_rate', 0):.1f}%"),
                 ("errors", f"{s['errors']} cases, {s.get('evaluator_errors', 0)} evaluators")]
        cards = "<div class='cards' id='summary'>" + "".join(
            f"<div class='card'><span>{escape(k)}</span><b>{escape(str(v))}</b></div>"
            for k, v in items) + "</div>"
    return cards + run_links(runs) + (table(rows, list(rows[0]), "runs-summary") if rows else "")


def run_links(runs: list[Run]) -> str:
    """Each run's link to the Prefect flow run that wrote it (when its Parquet file says)."""
    from agentv.tasks.results.run_meta import FLOW_RUN_URL
    links = [f"<a href='{escape(run.meta[FLOW_RUN_URL])}' target='_blank' rel='noopener'>"
             f"{escape(run.label)}: Prefect flow run</a>" for run in runs
             if run.meta.get(FLOW_RUN_URL)]
    return f"<p class='run-links' id='run-links'>{' · '.join(links)}</p>" if links else ""


def plots(runs: list[Run], summaries: list[dict[str, Any]],
          per_eval: list[list[dict[str, Any]]]) -> str:
    labels = [r.label for r in runs]
    out = ["<h3>Mean score and pass rate per run</h3>",
           grouped_bar_chart(labels, [("mean score", [s.get("mean") for s in summaries]),
                                      ("pass rate", [s.get("pass_rate") for s in summaries])],
                             "runs", 1.0)]
    evaluators = sorted({(r["target"], r["evaluator"]) for rows in per_eval for r in rows})
    series = []
    for run, rows in zip(runs, per_eval):
        means = {(r["target"], r["evaluator"]): r["mean"] for r in rows}
        series.append((run.label, [means.get(e) for e in evaluators]))
    names = [f"{t} · {e}" if len({t for t, _ in evaluators}) > 1 else e for t, e in evaluators]
    out += ["<h3>Mean score per evaluator</h3>",
            grouped_bar_chart(names, series, "evaluators", 1.0)]
    overall = [[r for r in rows if r["evaluator"] == OVERALL] for rows in per_eval]
    targets = sorted({r["target"] for rows in overall for r in rows})
    out += ["<h3>Mean score per target</h3>", grouped_bar_chart(
        [t or "(none)" for t in targets],
        [(run.label, [next((r["mean"] for r in rows if r["target"] == t), None)
                      for t in targets]) for run, rows in zip(runs, overall)], "targets", 1.0)]
    out += ["<h3>Score histogram</h3>",
            bar_chart(list(BIN_LABELS), [float(n) for n in summaries[0]["histogram"]],
                      "histogram") if len(runs) == 1 else grouped_bar_chart(
                list(BIN_LABELS), [(r.label, [float(n) for n in s["histogram"]])
                                   for r, s in zip(runs, summaries)], "histogram",
                fmt_spec="{:.0f}")]
    return "".join(out)


def breakdown_tables(runs: list[Run], per_eval: list[list[dict[str, Any]]]) -> str:
    rows = [{"run": run.label, **r} for run, part in zip(runs, per_eval) for r in part]
    overall = [r for r in rows if r["evaluator"] == OVERALL]
    return ("<h3>Per target</h3>" + table(overall, ["run", "target", "n", "mean", "median", "std",
                                                   "pass_rate", "error_rate", "p50_latency_ms",
                                                   "p95_latency_ms", "tokens", "cost_usd"],
                                          "per-target")
            + "<h3>Per evaluator</h3>" + table(rows, ["run", "target", "evaluator", "n", "mean",
                                                     "median", "std", "pass_rate", "error_rate",
                                                     "tokens", "cost_usd"], "per-evaluator"))


def trials_section(runs: list[Run]) -> str:
    rows = []
    for run in runs:
        cases = run.tally.case_trials()
        if not cases or max(c.n for c in cases) < 2:
            continue
        table_rows = case_table(cases)
        for r in sorted(table_rows, key=lambda r: not r["disagree"]):
            rows.append({"run": run.label, "case": r["eval_id"], "target": r["target"],
                         "trials": r["n"], "passes": r["passes"], "mean": r["mean"],
                         "pass@1": r["pass_at_1"], "pass@k": r["pass_at_k"],
                         "pass^k": r["pass_hat_k"], "k": r["k"],
                         "agreement": "DISAGREE" if r["disagree"] else "agree"})
    if not rows:
        return ("<p>Each case ran once per run (use <code>--trials K</code> to measure "
                "agreement).</p>")
    return table(rows, list(rows[0]), "trials")


def _case_order(row: dict[str, Any]) -> tuple[Any, ...]:
    """By eval_id, target (none last), trial."""
    target = row.get("target")
    return (str(row.get("eval_id")), target is None, target or "", row.get("trial") or 0)


class Partners:
    """Each record's counterpart for the answer diff: the same case (matched as ``compare``
    matches) and trial on the first other run or target that has it."""

    def __init__(self, runs: list[Run]) -> None:
        self.runs, self.by_target = runs, matches_by_target(runs)
        self.index: dict[tuple[Any, ...], list[tuple[int, dict[str, Any]]]] = {}
        for i, run in enumerate(runs):
            for row in run.rows:
                self.index.setdefault(self._key(row), []).append((i, row))

    def _key(self, row: dict[str, Any]) -> tuple[Any, ...]:
        return (row.get("eval_id"), row.get("trial") or 0,
                row.get("target") if self.by_target else None)

    def diff(self, row: dict[str, Any], run_index: int) -> str:
        mine = (run_index, row.get("target"))
        other = next(((j, r) for j, r in self.index.get(self._key(row), [])
                      if (j, r.get("target")) != mine), None)
        if other is None:
            return ""
        j, theirs = other
        return answer_diff(row.get("candidate_answer"), theirs.get("candidate_answer"),
                           f"{self.runs[run_index].label} · {row.get('target')}",
                           f"{self.runs[j].label} · {theirs.get('target')}")


def _context_key(case_key: Any) -> str:
    return "::".join(str(case_key).split("::")[:2]) if isinstance(case_key, str) else ""


def cases_section(runs: list[Run], contexts: dict[str, CaseContext]) -> str:
    """A drill-down per record, at most MAX_CASES (then errors and failures first)."""
    total = sum(len(r.rows) for r in runs)
    records = [(i, row) for i, run in enumerate(runs) for row in sorted(run.rows, key=_case_order)]
    if total > MAX_CASES:
        records = sorted(records, key=lambda x: x[1].get("verdict") == "pass")[:MAX_CASES]
    partners = Partners(runs)
    blocks = [case_block(SimpleNamespace(**row), i, runs[i].label,
                         contexts.get(_context_key(row.get("case_key"))), partners.diff(row, i))
              for i, row in records]
    note = (f"<p>Showing {MAX_CASES} of {total} records (failures and errors first).</p>"
            if total > MAX_CASES else f"<p>{total} record(s); click one to see its "
                                      "conversation, evaluators and trace.</p>")
    return (note + filter_box("", "filter cases (id, text)…", items="details.case")
            + "<div id='cases'>" + "".join(blocks) + "</div>")


def summaries_of(runs: list[Run]) -> tuple[list[dict[str, Any]], list[list[dict[str, Any]]]]:
    return [r.tally.summary() for r in runs], [r.tally.breakdown() for r in runs]
