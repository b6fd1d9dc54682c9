"""Filtering a 20,000-case report in headless Chromium (a benchmark, not a test).

Two runs of 20,000 cases on two targets are written through agentv's own ``ResultWriter``,
``agentv report`` renders them (the viewer's compare page of the second run against the
first), and Chromium times its text search and its pass/fail "Flips" filter (each must finish
within 2 s; the embedded cases keep failures first).

    .venv/bin/python tests/benchmarks/bench_report_filter.py [--cases 20000]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(os.environ.get("AGENTV_ROOT") or Path(__file__).resolve().parents[2])
sys.path.insert(0, str(ROOT))

from agentv.tasks.report import write_report  # noqa: E402
from agentv.tasks.results.write import ResultWriter  # noqa: E402
from tests.browser import Browser  # noqa: E402

LIMIT_S = 2.0


def record(i: int, target: str, passed: bool) -> dict:
    score = 1.0 if passed else 0.2
    verdict = "pass" if passed else "fail"
    return {"eval_id": f"case-{i:05d}", "dataset": "bench", "target": target, "trial": 0,
            "case_key": f"bench.yaml::case-{i:05d}::{target}::0", "score": score,
            "verdict": verdict, "candidate_answer": f"answer {i} from {target}",
            "lm_provider_request": {"chat_prompt": [{"role": "user", "content": f"q {i}"}]},
            "evaluator_results": [{"name": "contains", "type": "contains", "score": score,
                                   "verdict": verdict, "reasoning": f"case {i}"}]}


def write_runs(folder: Path, cases: int) -> list[str]:
    paths = []
    for target, flip_every in (("alpha", 0), ("beta", 7)):
        path = folder / f"{target}.jsonl"
        with ResultWriter(path) as writer:
            for i in range(cases):
                writer.write(record(i, target, not (flip_every and i % flip_every == 0)))
        paths.append(str(path))
    return paths


def timed(b: Browser, action: str) -> tuple[float, int]:
    out = b.js(f"(() => {{ const t = performance.now(); {action}; "
               "return [performance.now() - t, window.agentvView.shown()]; })()")
    return out[0] / 1000, out[1]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        paths = write_runs(Path(tmp), args.cases)
        page = write_report(paths, Path(tmp) / "report.html")
        print(f"wrote and rendered {args.cases} cases × 2 targets in "
              f"{time.perf_counter() - started:.1f}s ({page.stat().st_size / 1e6:.1f} MB)")
        with Browser() as b:
            opened = time.perf_counter()
            b.open(page.as_uri())
            b.wait_for("document.documentElement.dataset.rendered === '1' && "
                       "window.agentvView.shown", timeout=120)
            print(f"page loaded in {time.perf_counter() - opened:.1f}s")
            text_s, text_n = timed(b, "window.agentvView.search('case-1999')")
            b.js("window.agentvView.search('')")
            changed_s, changed_n = timed(b, "window.agentvView.filter('flip')")
            rows = b.js("document.querySelectorAll('#compare tbody tr').length")
    print(f"filter 'case-1999': {text_s * 1000:.0f} ms, {text_n} case(s)")
    print(f"only changed: {changed_s * 1000:.0f} ms, {changed_n} case(s), {rows} row(s) drawn")
    expected_changed = len(range(0, args.cases, 7))
    assert text_n == 10 and changed_n == expected_changed, (text_n, changed_n)
    assert text_s <= LIMIT_S and changed_s <= LIMIT_S, (text_s, changed_s)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
