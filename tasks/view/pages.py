"""Each viewer page's data from the run index and the run store: what the server sends
for one URL and what a report embeds for every page."""
from __future__ import annotations

from typing import Any

from agentv.tasks.view.case_context import case_contexts
from agentv.tasks.view.case_data import case_data
from agentv.tasks.view.compare_data import compare_data
from agentv.tasks.view.index import RunIndex
from agentv.tasks.view.run_data import run_data
from agentv.tasks.view.store import RunStore

BASE_COLUMNS = ("eval_id", "target", "trial", "score", "verdict")


class NotFound(LookupError):
    """No such run or case."""


def context_key(case_key: Any) -> str:
    return "::".join(str(case_key).split("::")[:2]) if isinstance(case_key, str) else ""


class Pages:
    def __init__(self, index: RunIndex, store: RunStore | None = None) -> None:
        self.index, self.store = index, store or RunStore()

    def _run(self, run_id: str) -> dict[str, Any]:
        run = self.index.get(run_id)
        if run is None:
            raise NotFound(f"no run '{run_id}' under {', '.join(map(str, self.index.sources))}")
        return run

    def _baseline(self, run: dict[str, Any], baseline_id: str | None) -> dict[str, Any] | None:
        return self._run(baseline_id) if baseline_id else self.index.baseline_of(run)

    def warm(self) -> None:
        """Index the runs and read the newest (at start-up, so the first page is quick)."""
        runs = self.index.runs()
        if runs:
            self.run(runs[0]["id"])

    def runs(self) -> dict[str, Any]:
        return {"runs": self.index.runs(), "problems": dict(self.index.problems)}

    def run(self, run_id: str) -> dict[str, Any]:
        run = self._run(run_id)
        base = self.index.baseline_of(run)
        base_rows = self.store.rows(base["path"], BASE_COLUMNS) if base else None
        return run_data(run, self.store.rows(run["path"]), base, base_rows)

    def case(self, run_id: str, eval_id: str, trial: int, target: str) -> dict[str, Any]:
        run = self._run(run_id)
        members = [r for r in self.store.rows(run["path"])
                   if r.get("eval_id") == eval_id and (r.get("trial") or 0) == trial]
        if not members:
            raise NotFound(f"no case '{eval_id}' (trial {trial}) in run '{run_id}'")
        key = context_key(members[0].get("case_key"))
        base = self.index.baseline_of(run)
        before = None
        if base:
            before = next((r for r in self.store.rows(base["path"])
                           if r.get("eval_id") == eval_id and (r.get("trial") or 0) == trial
                           and (r.get("target") or "") == target), None)
        return case_data(run, members, target, case_contexts([key]).get(key) if key else None,
                         (base["id"], before) if base and before else None)

    def compare(self, run_id: str, baseline_id: str | None = None) -> dict[str, Any]:
        run = self._run(run_id)
        base = self._baseline(run, baseline_id)
        choices = [r["id"] for r in self.index.runs() if r["id"] != run_id]
        if base is None:
            return {"run": run, "baseline": None, "choices": choices, "rows": []}
        data = compare_data(run, self.store.rows(run["path"]), base,
                            self.store.rows(base["path"]))
        return {**data, "choices": choices}
