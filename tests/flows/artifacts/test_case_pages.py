"""The run-level case table, paged past 1,000 cases and published while the cases run
(flows/artifacts/case_pages.py): every case exactly once, each page sorted by case id, a table
that fits published whole under its usual key. End to end: the real `agentv eval` in a
subprocess against the session's Prefect server, read back through the Prefect API."""
from __future__ import annotations

import asyncio
import json
import re

import pytest

from agentv.flows.artifacts.case_pages import PAGE_ROWS, POLL_S, CasePages
from agentv.flows.artifacts.case_table import collected_tables
from agentv.tasks.results.case_rows import FIRST, LAST


def rows(n: int, start: int = 0) -> list[tuple]:
    return [(f"case-{i:05d}", 0, 1.0, "pass", "", "", "", "", 1.0, "q", "a", "e",
             (("exact", "1.00 pass"),))
            for i in range(start + n - 1, start - 1, -1)]  # arrive in reverse id order


def test_a_table_that_fits_is_published_whole_at_the_end():
    cases = {("evals/a.yaml", "t"): rows(PAGE_ROWS)}
    pages = CasePages(cases)
    assert pages.full_pages() == []
    assert pages.final_tables() == collected_tables(cases)


def test_past_the_limit_pages_cover_every_case_once_in_id_order():
    cases = {("evals/a.yaml", "t"): rows(2 * PAGE_ROWS + 1), ("evals/b.yaml", "t"): rows(5)}
    pages = CasePages(cases)
    early = pages.full_pages()
    assert [k for k, _, _ in early] == ["agentv-cases-a-t-p1", "agentv-cases-a-t-p2"]
    cases[("evals/a.yaml", "t")] += rows(10, start=2 * PAGE_ROWS + 1)  # more arrive
    assert pages.full_pages() == []  # 11 unsent: not a page yet
    final = pages.final_tables()
    assert [k for k, _, _ in final] == ["agentv-cases-b-t", "agentv-cases-a-t-p3"]
    paged = [r for _, _, table in early + final[1:] for r in table]
    assert sorted(r["eval_id"] for r in paged) == [f"case-{i:05d}" for i in
                                                   range(2 * PAGE_ROWS + 11)]
    for _, description, table in early:
        ids = [r["eval_id"] for r in table]
        assert len(table) == PAGE_ROWS and ids == sorted(ids)
        assert description.endswith(f"({PAGE_ROWS} case(s): {ids[0]} … {ids[-1]})")
    assert list(early[0][2][0]) == [*FIRST, "⚖ exact", *LAST]
    fresh = {("evals/a.yaml", "t"): rows(2 * PAGE_ROWS + 1)}  # (paged rows were let go)
    assert CasePages(fresh).final_tables()[0][0] == "agentv-cases-a-t"  # nothing was paged


def test_the_poller_sends_full_pages_until_stopped():
    published: list[tuple[str, int]] = []

    async def publish(key: str, description: str, table: list[dict]) -> None:
        await asyncio.sleep(0.01)
        published.append((key, len(table)))

    async def run() -> list:
        cases: dict = {("evals/a.yaml", "t"): []}
        pages = CasePages(cases, publish).start()
        cases[("evals/a.yaml", "t")] += rows(PAGE_ROWS + 5)
        await asyncio.sleep(POLL_S * 3)
        assert published == [("agentv-cases-a-t-p1", PAGE_ROWS)]
        cases[("evals/a.yaml", "t")] += rows(PAGE_ROWS, start=PAGE_ROWS + 5)
        pages.stop()  # the cases are done: nothing more is taken by the poller
        await pages.sent()
        return pages.final_tables()
    final = asyncio.run(run())
    assert published == [("agentv-cases-a-t-p1", PAGE_ROWS)]
    assert [(k, len(t)) for k, _, t in final] == [("agentv-cases-a-t-p2", PAGE_ROWS + 5)]


@pytest.mark.slow
def test_a_large_run_publishes_its_case_pages_while_the_cases_run(cli, tmp_path):
    n = 2 * PAGE_ROWS + 600
    lines = ["$schema: agentv-eval-v2", "evalcases:"]
    lines += [f"  - id: case-{i:05d}\n    input: q{i}\n    evaluators:\n"
              f"      - {{name: c, type: contains, value: ok}}" for i in range(n)]
    (tmp_path / "big.yaml").write_text("\n".join(lines) + "\n")
    (tmp_path / "targets.yaml").write_text("$schema: agentv-targets-v2\ntargets:\n"
                                           "  - name: default\n    provider: mock\n"
                                           "    response: ok\n    delayMs: 20\n")
    proc = cli("eval", str(tmp_path / "big.yaml"), "--targets", str(tmp_path / "targets.yaml"),
               "--workers", "50", "--out", str(tmp_path / "r.jsonl"))
    assert proc.returncode == 0, proc.stderr
    arts = _artifacts(re.search(r"flow-run/([0-9a-f-]{36})", proc.stdout).group(1))
    pages = sorted((a for a in arts if (a.key or "").startswith("agentv-cases-")),
                   key=lambda a: int(a.key.rsplit("-p", 1)[1]))
    assert [a.key for a in pages] == [f"agentv-cases-big-default-p{k}"
                                      for k in range(1, len(pages) + 1)]
    ids = [r["eval_id"] for a in pages for r in json.loads(a.data)]
    assert sorted(ids) == [f"case-{i:05d}" for i in range(n)]  # each case once
    batches = [a for a in arts if (a.description or "").startswith("Cases of batch")]
    assert sum(len(json.loads(a.data)) for a in batches) == n
    assert all(a.key.startswith("agentv-batch-big-yaml-default-") for a in batches)
    # the first page went out while cases were still running
    assert pages[0].created < max(a.created for a in batches)
    _pages_in_the_ui(proc.stdout, [a.key for a in pages])


def _pages_in_the_ui(stdout: str, keys: list[str]) -> None:
    """The flow run's Artifacts tab lists the pages sent while the cases ran (the last one
    is the summarize task's); a page opens on its cases; each key has its history page."""
    from tests.browser import Browser, chromium, click_text
    url = re.search(r"prefect flow run: (\S+)", stdout).group(1)
    with Browser(chromium()) as b:
        b.open(url)
        b.wait_for_text("big × default", timeout=90)
        click_text(b, "Artifacts")
        b.wait_for_text(keys[0])
        click_text(b, keys[0])
        b.wait_for_text("page 1 (1000 case(s): case-", "eval_id", "verdict", "case-00000")
        b.screenshot("prefect-case-page.png")
        for key in keys:
            b.open(f"{url.split('/flow-runs/')[0]}/artifacts/key/{key}")
            b.wait_for_text(key, f"page {key.rsplit('-p', 1)[1]} (")


def _artifacts(flow_run_id: str) -> list:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

    async def read() -> list:
        out: list = []
        async with get_client() as client:
            while True:
                got = await client.read_artifacts(artifact_filter=ArtifactFilter(
                    flow_run_id=ArtifactFilterFlowRunId(any_=[flow_run_id])), offset=len(out),
                    limit=200)
                out += got
                if len(got) < 200:
                    return out
    return asyncio.run(read())
