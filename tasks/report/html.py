"""HTML building blocks of the report: formatting, sortable/filterable tables, inline SVG
charts, the page's CSS and its few lines of script (sorting, filtering, drill-down).
Nothing is loaded from the network."""
from __future__ import annotations

import math
from typing import Any

from agentv.providers.printable import html_text as escape

CSS = """body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1200px;color:#222}
h1{margin-bottom:.2rem}h2{margin-top:2rem;border-bottom:1px solid #ddd}
.cards{display:flex;flex-wrap:wrap;gap:.8rem}.card{border:1px solid #ddd;border-radius:6px;
padding:.5rem .9rem;min-width:8rem}.card b{display:block;font-size:1.3rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0}td,th{border:1px solid #ddd;
padding:.25rem .45rem;text-align:left;vertical-align:top}th{background:#f5f5f5}
th.sortable{cursor:pointer;user-select:none}th.sortable:after{content:' \\2195';color:#999}
th[data-dir=asc]:after{content:' \\2191'}th[data-dir=desc]:after{content:' \\2193'}
.num{text-align:right;font-variant-numeric:tabular-nums}pre{white-space:pre-wrap;
background:#f8f8f8;padding:.4rem;margin:.2rem 0;max-height:24rem;overflow:auto}
.fail,.error,.regressed{color:#b00020}.borderline,.mixed{color:#a36100}
.pass,.improved{color:#1b7f2a}tr.flip{background:#fff4d6}tr.flip td:first-child{
border-left:4px solid #e0a800}details{border:1px solid #ddd;border-radius:6px;margin:.4rem 0;
padding:.3rem .6rem}summary{cursor:pointer}svg text{font-size:11px}
.filter,.matrix-filter{width:20rem;padding:.3rem;margin-right:1rem}.meta span{margin-right:1.2rem}
ul.items{margin:.1rem 0;padding-left:1.1rem}.hit{color:#1b7f2a}.miss{color:#b00020}
.sources li{font-family:monospace}.side-by-side{display:flex;gap:.6rem}
.side-by-side>div{flex:1;min-width:0}.diff .add{background:#e6ffec}.diff .del{
background:#ffebe9}.diff .hunk{color:#6a737d}.role{font-weight:bold;margin:.3rem 0 0}"""

SCRIPT = r"""
function cellValue(td){const v=td.dataset.v!==undefined?td.dataset.v:td.textContent.trim();
const n=parseFloat(v);return (v!==''&&!isNaN(n)&&isFinite(v))?n:v.toLowerCase();}
document.querySelectorAll('table.sortable').forEach(t=>{
 t.querySelectorAll('th').forEach((th,i)=>{th.classList.add('sortable');
  th.addEventListener('click',()=>{const dir=th.dataset.dir==='asc'?'desc':'asc';
   t.querySelectorAll('th').forEach(o=>delete o.dataset.dir);th.dataset.dir=dir;
   const body=t.tBodies[0];const rows=Array.from(body.rows);
   rows.sort((a,b)=>{const x=cellValue(a.cells[i]),y=cellValue(b.cells[i]);
    if(x===y)return 0;if(x===''||x==='n/a')return 1;if(y===''||y==='n/a')return -1;
    const c=(typeof x===typeof y)?(x<y?-1:1):(typeof x==='number'?-1:1);
    return dir==='asc'?c:-c;});rows.forEach(r=>body.appendChild(r));});});});
function applyFilter(box){const q=box.value.toLowerCase();
 const t=document.getElementById(box.dataset.table);
 const flipsOnly=box.dataset.flips&&document.getElementById(box.dataset.flips).checked;
 const sel=t?t.tBodies[0].rows:document.querySelectorAll(box.dataset.items);
 Array.from(sel).forEach(r=>{const ok=r.textContent.toLowerCase().includes(q)&&
  (!flipsOnly||r.classList.contains('flip'));r.style.display=ok?'':'none';});}
document.querySelectorAll('input.filter').forEach(box=>{
 box.addEventListener('input',()=>applyFilter(box));
 if(box.dataset.flips){document.getElementById(box.dataset.flips).addEventListener('change',()=>applyFilter(box));}});
function openCase(){const id=decodeURIComponent(location.hash.slice(1));
 const d=id&&document.getElementById(id);
 if(d&&d.tagName==='DETAILS'){d.open=true;d.scrollIntoView();}}
window.addEventListener('hashchange',openCase);openCase();
document.documentElement.dataset.rendered='1';"""


def escape_text(value: Any) -> str:
    """HTML-escaped text with control characters, terminal escapes and bidi overrides shown
    as ``\\xNN`` (``\\uNNNN``); newlines and tabs kept (one printable: providers/printable)."""
    return escape(value)


def missing(value: Any) -> bool:
    """None, NaN or pandas' NA."""
    return (value is None or type(value).__name__ in ("NAType", "NaTType")
            or (isinstance(value, float) and math.isnan(value)))


def fmt(value: Any, digits: int = 3) -> str:
    """HTML-safe text of a value; ``n/a`` when missing."""
    if missing(value):
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return escape(str(value))


def sort_value(value: Any) -> str:
    if missing(value):
        return ""
    return escape(str(value))


def table(rows: list[dict[str, Any]], columns: list[str], css_id: str) -> str:
    """A sortable table (click a header) of plain values."""
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(
        f"<td class='{'num' if isinstance(r.get(c), (int, float)) else ''}' "
        f"data-v='{sort_value(r.get(c))}'>{fmt(r.get(c))}</td>" for c in columns) + "</tr>"
        for r in rows)
    return (f"<table class='sortable' id='{css_id}'><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>")


def filter_box(target: str, placeholder: str, flips: str | None = None,
               items: str | None = None) -> str:
    attrs = f" data-table='{target}'" if target else ""
    attrs += f" data-flips='{flips}'" if flips else ""
    attrs += f" data-items='{items}'" if items else ""
    box = (f"<input class='filter' id='filter-{target or 'cases'}' type='search' "
           f"placeholder='{escape(placeholder)}'{attrs}>")
    if flips:
        box += f"<label><input type='checkbox' id='{flips}'> only cases that flip</label>"
    return f"<p>{box}</p>"


PALETTE = ("#4a78c2", "#e08a2c", "#3a9d5d", "#b04a9c", "#7a7a7a", "#c2b04a")


def bar_chart(labels: list[str], values: list[float], css_id: str,
              max_value: float | None = None, fmt_spec: str = "{:.0f}") -> str:
    """Horizontal bar chart as inline SVG."""
    series: list[tuple[str, list[float | None]]] = [("", list(values))]
    return grouped_bar_chart(labels, series, css_id, max_value, fmt_spec)


def grouped_bar_chart(labels: list[str], series: list[tuple[str, list[float | None]]],
                      css_id: str, max_value: float | None = None,
                      fmt_spec: str = "{:.3f}") -> str:
    """One group of horizontal bars per label, one bar per series (e.g. per run)."""
    values = [v for _, vs in series for v in vs if v is not None]
    top = max_value or max(values + [1e-9])
    width, bar, label_w = 720, 16, 220
    group = bar * len(series) + 8
    legend = 18 if len(series) > 1 else 0
    parts = []
    for j, (name, _) in enumerate(series if legend else []):
        x = label_w + j * 140
        parts.append(f"<rect x='{x}' y='3' width='10' height='10' fill='{PALETTE[j % 6]}'/>"
                     f"<text x='{x + 14}' y='12'>{escape(name[:20])}</text>")
    for i, label in enumerate(labels):
        y0 = legend + i * group
        parts.append(f"<text x='0' y='{y0 + group / 2 + 3:.0f}'>{escape(str(label)[:34])}</text>")
        for j, (name, vs) in enumerate(series):
            value = vs[i]
            y = y0 + j * bar
            length = 0 if value is None or top <= 0 else (width - label_w - 60) * value / top
            text = "n/a" if value is None else fmt_spec.format(value)
            parts.append(f"<rect class='bar' x='{label_w}' y='{y + 2}' width='{length:.1f}' "
                         f"height='{bar - 3}' fill='{PALETTE[j % 6]}'><title>{escape(name)} "
                         f"{escape(str(label))}: {text}</title></rect>"
                         f"<text x='{label_w + length + 5:.1f}' y='{y + bar - 3}'>{text}</text>")
    height = legend + group * len(labels) + 4
    return (f"<svg class='chart' id='{css_id}' role='img' width='{width}' height='{height}' "
            f"xmlns='http://www.w3.org/2000/svg'>{''.join(parts)}</svg>")
