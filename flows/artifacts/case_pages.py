"""The run's case tables (flows/artifacts/case_table.py) published while the cases run, a page at a
time, so the end of a large run does not send every case at once (~0.6 s for 20,000
rows, most of it the Prefect server storing them).

A table of up to ``PAGE_ROWS`` cases is published whole at the end under
``agentv-cases-<suite>-<target>``, as before. Past that it is paged: while the cases run,
``CasePages`` looks at the case rows the run's sink collects (``RunSink.cases``) every
``POLL_S``, and once more than ``PAGE_ROWS`` rows are not yet published, the next
``PAGE_ROWS`` go out as one page, sorted by case id, under
``agentv-cases-<suite>-<target>-p<k>`` (k = 1, 2, … in the order the cases finished; the
description names its first and last case). At the end (``final_tables``) what is left is
the table's last page.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Any

from agentv.flows.artifacts.case_table import collected_tables, suite_of
from agentv.flows.prefect.naming import artifact_key
from agentv.tasks.results.case_rows import table_rows

PAGE_ROWS = 1000  # a table this long goes out whole at the end; past it, in pages
POLL_S = 0.25
log = logging.getLogger("agentv.artifacts")
Part = tuple[str, str]  # (eval file, target) as the sink groups its rows
Table = tuple[str, str, list[dict[str, Any]]]  # (artifact key, description, rows)


def _suite(part: Part) -> str:
    return suite_of(f"{part[0]}::") if part[0] else "unknown"


def page_table(suite: str, target: str, number: int, rows: list[tuple[Any, ...]]) -> Table:
    """Page ``number`` of a suite × target's case table, sorted by case id and trial."""
    ordered = sorted(rows, key=lambda r: (str(r[0]), r[1]))
    span = f"{ordered[0][0]} … {ordered[-1][0]}" if ordered else "none"
    return (f"{artifact_key('cases', [suite], [target])}-p{number}",
            f"agentv cases: {suite} × {target}, page {number} ({len(rows)} case(s): {span})",
            table_rows(ordered))


class CasePages:
    """The pages of one run's case tables: which rows went out, and the poller sending
    full pages while the cases run (``start``, ``stop``, ``sent``)."""

    def __init__(self, cases: dict[Part, list[tuple[Any, ...]]],
                 publish: Any = None) -> None:
        self.cases = cases
        self.publish = publish  # async (key, description, rows) → None
        self.taken: dict[Part, int] = {}  # rows of each part taken and still listed (a
        # page's rows leave the list: only the final tables' rows are counted here)
        self.pages: dict[tuple[str, str], int] = {}  # (suite, target) → pages published
        self._poller: asyncio.Task | None = None
        self._stopping = asyncio.Event() if publish is not None else None

    def _unsent(self) -> dict[tuple[str, str], list[Part]]:
        tables: dict[tuple[str, str], list[Part]] = {}
        for part in sorted(self.cases):
            if len(self.cases[part]) > self.taken.get(part, 0):
                tables.setdefault((_suite(part), part[1]), []).append(part)
        return tables

    def _take(self, parts: list[Part], limit: int | None) -> list[tuple[Any, ...]]:
        rows: list[tuple[Any, ...]] = []
        for part in parts:
            start = self.taken.get(part, 0)
            end = len(self.cases[part]) if limit is None else min(
                len(self.cases[part]), start + limit - len(rows))
            rows += self.cases[part][start:end]
            if limit is not None:  # a page while the cases run: its rows leave the list
                del self.cases[part][start:end]
                end = start
            self.taken[part] = end
        return rows

    def full_pages(self) -> list[Table]:
        """Pages of ``PAGE_ROWS`` rows of every table holding more than that unsent."""
        out = []
        for (suite, target), parts in self._unsent().items():
            while sum(len(self.cases[p]) - self.taken.get(p, 0) for p in parts) > PAGE_ROWS:
                number = self.pages[(suite, target)] = self.pages.get((suite, target), 0) + 1
                out.append(page_table(suite, target, number, self._take(parts, PAGE_ROWS)))
        return out

    def final_tables(self) -> list[Table]:
        """What is left at the end: last pages, and the tables that never needed pages."""
        whole: dict[Part, list[tuple[Any, ...]]] = {}
        out = []
        for (suite, target), parts in self._unsent().items():
            if (suite, target) in self.pages:
                number = self.pages[(suite, target)] = self.pages[(suite, target)] + 1
                out.append(page_table(suite, target, number, self._take(parts, None)))
            else:
                whole.update({p: self._take([p], None) for p in parts})
        return collected_tables(whole) + out

    # ------------------------------------------------------------ while the cases run
    def start(self) -> CasePages:
        self._poller = asyncio.ensure_future(self._poll())
        return self

    async def _poll(self) -> None:
        assert self._stopping is not None
        while True:
            try:
                await asyncio.wait_for(self._stopping.wait(), POLL_S)
                return  # the cases are done: what is left goes out with the summary
            except asyncio.TimeoutError:
                pass
            for table in self.full_pages():
                try:
                    await self.publish(*table)
                except Exception as err:  # noqa: BLE001 - a page lost is logged, the run goes on
                    log.warning("could not publish %s: %s", table[0], err)

    def stop(self) -> None:
        """The cases are done: no new page is taken (what is left is final); a page being
        sent completes (``sent``) while the summary is made."""
        if self._stopping is not None:
            self._stopping.set()

    async def sent(self) -> None:
        """The pages taken while the cases ran have been published."""
        if self._poller is not None:
            await asyncio.gather(self._poller, return_exceptions=True)
