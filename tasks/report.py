"""``agentv report RESULTS``: one self-contained HTML file (inline CSS, SVG charts, a few
lines of inline script; nothing loaded from the network).

Sections: summary, score histogram, per-target and per-target × evaluator breakdowns,
trials agreement, and the cases that did not pass (question, expected outcome, answer,
each evaluator's verdict and reasoning), with a filter box. The expected outcome is not
part of a record: it is looked up in the eval file named by the record's ``case_key``
when that file can still be read. The page passes through ``redact``.
"""
from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from html import escape
from pathlib import Path
from typing import Any

from tasks.redact import redact
from tasks.stats import BIN_LABELS, breakdown, summarize
from tasks.trials import case_table

MAX_CASES = 500
CSS = """body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#222}
h1{margin-bottom:.2rem}h2{margin-top:2rem;border-bottom:1px solid #ddd}
.cards{display:flex;flex-wrap:wrap;gap:.8rem}.card{border:1px solid #ddd;border-radius:6px;
padding:.5rem .9rem;min-width:8rem}.card b{display:block;font-size:1.3rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0}td,th{border:1px solid #ddd;
padding:.25rem .45rem;text-align:left;vertical-align:top}th{background:#f5f5f5}
.num{text-align:right;font-variant-numeric:tabular-nums}pre{white-space:pre-wrap;
background:#f8f8f8;padding:.4rem;margin:.2rem 0;max-height:20rem;overflow:auto}
.fail,.error{color:#b00020}.borderline{color:#a36100}.pass{color:#1b7f2a}
details{border:1px solid #ddd;border-radius:6px;margin:.4rem 0;padding:.3rem .6rem}
summary{cursor:pointer}svg text{font-size:11px}#filter{width:20rem;padding:.3rem}"""
SCRIPT = """const box=document.getElementById('filter');
if(box){box.addEventListener('input',()=>{const q=box.value.toLowerCase();
document.querySelectorAll('details.case').forEach(d=>{
d.style.display=d.textContent.toLowerCase().includes(q)?'':'none';});});}
document.documentElement.dataset.rendered='1';"""


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return escape(str(value))


def _table(rows: list[dict[str, Any]], columns: list[str], css_id: str) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(
        f"<td class='{'num' if isinstance(r.get(c), (int, float)) else ''}'>{_fmt(r.get(c))}</td>"
        for c in columns) + "</tr>" for r in rows)
    return f"<table id='{css_id}'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def bar_chart(labels: list[str], values: list[float], css_id: str, max_value: float | None = None,
              fmt: str = "{:.0f}") -> str:
    """Horizontal bar chart as inline SVG."""
    top = max_value or max(values + [1e-9])
    width, row, label_w = 640, 22, 190
    bars = []
    for i, (label, value) in enumerate(zip(labels, values)):
        y = i * row
        length = 0 if top <= 0 else (width - label_w - 60) * value / top
        bars.append(f"<text x='0' y='{y + 15}'>{escape(label[:30])}</text>"
                    f"<rect class='bar' x='{label_w}' y='{y + 4}' width='{length:.1f}' "
                    f"height='{row - 8}' fill='#4a78c2'/>"
                    f"<text x='{label_w + length + 5:.1f}' y='{y + 15}'>{fmt.format(value)}</text>")
    return (f"<svg class='chart' id='{css_id}' role='img' width='{width}' "
            f"height='{row * len(labels) + 4}' xmlns='http://www.w3.org/2000/svg'>"
            + "".join(bars) + "</svg>")


def _cards(summary: dict[str, Any]) -> str:
    ci = summary.get("ci95")
    items = [("cases", summary["total"]), ("mean score", _fmt(summary.get("mean"))),
             ("95% CI", f"{ci[0]:.3f}–{ci[1]:.3f}" if ci else "n/a"),
             ("pass rate", f"{100 * summary.get('pass_rate', 0):.1f}%"),
             ("errors", summary["errors"]),
             ("tokens", f"{summary.get('input_tokens', 0)} / {summary.get('output_tokens', 0)}"),
             ("cost", "n/a" if summary.get("cost_usd") is None else f"${summary['cost_usd']:.4f}")]
    return "<div class='cards' id='summary'>" + "".join(
        f"<div class='card'><span>{escape(k)}</span><b>{escape(str(v))}</b></div>"
        for k, v in items) + "</div>"


def _trials_section(df) -> str:
    if df.empty or int(df.groupby(["target", "dataset", "eval_id"], dropna=False).size().max()) < 2:
        return "<p>Each case ran once (use <code>--trials K</code> to measure agreement).</p>"
    cases = case_table(df)
    k = int(cases["n"].min())
    shown = cases.sort_values("disagree", ascending=False, kind="stable").head(MAX_CASES)
    note = (f"<p>Showing {MAX_CASES} of {len(cases)} cases, disagreeing first.</p>"
            if len(cases) > MAX_CASES else "")
    rows = [{"case": r.eval_id, "target": r.target, "trials": int(r.n), "passes": int(r.passes),
             "mean": float(r.mean), "pass@1": float(r.pass_at_1), f"pass@{k}": float(r.pass_at_k),
             f"pass^{k}": float(r.pass_hat_k), "agreement": "DISAGREE" if r.disagree else "agree"}
            for r in shown.itertuples()]
    return note + _table(rows, list(rows[0]), "trials")


def expected_outcomes(case_keys) -> dict[str, str]:
    """case file::eval_id → expected outcome, read from the eval files still on disk."""
    from providers.errors import ConfigError
    from tasks.discover import repo_root
    from tasks.files import load_suite
    found: dict[str, str] = {}
    files = {str(k).split("::")[0] for k in case_keys if isinstance(k, str) and "::" in k}
    for name in sorted(files):
        path = next((p for p in (Path(name), repo_root() / name) if p.is_file()), None)
        try:
            suite = load_suite(path, warn=lambda _: None) if path else None
        except (ConfigError, OSError, ValueError):
            suite = None
        for case in suite.cases if suite else []:
            found[f"{name}::{case.id}"] = case.expected_outcome
    return found


def _evaluator_rows(raw: str | None) -> str:
    results = json.loads(raw) if raw else []
    return "".join(
        f"<tr><td>{escape(str(r.get('name')))}</td><td class='num'>{_fmt(r.get('score'))}</td>"
        f"<td class='{escape(str(r.get('verdict')))}'>{escape(str(r.get('verdict')))}</td>"
        f"<td>{escape(str(r.get('reasoning') or r.get('error') or ''))}"
        + "".join(f"<br>miss: {escape(str(m))}" for m in r.get("misses") or []) + "</td></tr>"
        for r in results)


def _case_block(row: Any, expected: dict[str, str]) -> str:
    key = "::".join(str(row.case_key).split("::")[:2]) if isinstance(row.case_key, str) else ""
    anchor = escape(f"case-{row.eval_id}-{row.target}-{row.trial}".replace(" ", "_"))
    evaluators = _evaluator_rows(row.evaluator_results)
    table = ("<table><tr><th>evaluator</th><th>score</th><th>verdict</th><th>reasoning</th></tr>"
             f"{evaluators}</table>") if evaluators else ""
    error = f"<p class='error'>error: {escape(str(row.error))}</p>" if row.verdict == "error" else ""
    return (f"<details class='case' id='{anchor}'><summary><b>{escape(str(row.eval_id))}</b> "
            f"[{escape(str(row.target))}] trial {row.trial} — score {_fmt(row.score)} "
            f"<span class='{escape(str(row.verdict))}'>{escape(str(row.verdict))}</span></summary>"
            f"{error}<h4>Question</h4><pre>{escape(str(row.question or ''))}</pre>"
            f"<h4>Expected</h4><pre>{escape(expected.get(key, 'n/a'))}</pre>"
            f"<h4>Answer</h4><pre>{escape(str(row.candidate_answer or ''))}</pre>"
            f"<h4>Evaluators</h4>{table}<pre>{escape(str(row.reasoning or ''))}</pre></details>")


def _failing_section(df) -> str:
    failing = df[df["verdict"].ne("pass")].sort_values(["score", "eval_id"], kind="stable")
    if failing.empty:
        return "<p id='no-failures'>Every case passed.</p>"
    shown = failing.head(MAX_CASES)
    expected = expected_outcomes(shown["case_key"].dropna().unique())
    note = (f"<p>Showing the {MAX_CASES} lowest-scoring of {len(failing)} cases.</p>"
            if len(failing) > MAX_CASES else f"<p>{len(failing)} case(s) did not pass.</p>")
    box = "<input id='filter' type='search' placeholder='filter cases (id, text)…'>"
    return note + box + "<div id='failing'>" + "".join(
        _case_block(r, expected) for r in shown.itertuples()) + "</div>"


def render_report(df, source: str) -> str:
    summary = summarize(df)
    per_eval = breakdown(df)
    overall = [r for r in per_eval if r["evaluator"] == "(overall)"]
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    body = [f"<h1>agentv report</h1><p>{escape(source)} · generated {generated}</p>",
            "<h2>Summary</h2>", _cards(summary),
            "<h2>Score histogram</h2>",
            bar_chart(list(BIN_LABELS), [float(n) for n in summary["histogram"]], "histogram"),
            "<h2>Per target</h2>",
            bar_chart([r["target"] or "(none)" for r in overall],
                      [float(r["mean"]) for r in overall], "targets", 1.0, "{:.3f}"),
            _table(overall, ["target", "n", "mean", "median", "std", "pass_rate", "error_rate",
                             "p50_latency_ms", "p95_latency_ms", "tokens", "cost_usd"],
                   "per-target"),
            "<h2>Per evaluator</h2>",
            _table(per_eval, ["target", "evaluator", "n", "mean", "median", "std", "pass_rate",
                              "error_rate", "tokens", "cost_usd"], "per-evaluator"),
            "<h2>Trials agreement</h2>", _trials_section(df),
            "<h2>Cases that did not pass</h2>", _failing_section(df)]
    page = ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>agentv report: {escape(Path(source).name)}</title><style>{CSS}</style>"
            f"</head><body>{''.join(body)}<script>{SCRIPT}</script></body></html>\n")
    return redact(page)


def default_report_path(results: str) -> Path:
    first = Path(results[0] if isinstance(results, (list, tuple)) else results)
    return first.with_suffix(".html")


def write_report(results: str, out: str | Path | None = None) -> Path:
    from tasks.results import load_results
    df = load_results(results)
    path = Path(out) if out else default_report_path(results)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_report(df, str(results)), encoding="utf-8")
    return path
