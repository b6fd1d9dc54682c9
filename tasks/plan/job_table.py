"""A plan's jobs as columns: a 100,000-job run keeps ~16 bytes a job (which case, in which
store, which target, which trial, whether it began), not a ``Job`` object each. A ``Job`` is
made when one is looked at (``table[i]``, iterating) and let go with its batch.

``JobTable`` is the plan's whole list; ``JobView`` some of its jobs by position (a slice, a
shard, the pending jobs, a batch). ``kept`` / ``not_done`` and ``grouped`` filter and group
any sequence of jobs: a table or view gives views, a plain list (the typed API's) lists.
"""
from __future__ import annotations

from array import array
from typing import Any, Callable, Iterator, Sequence, overload

from agentv.tasks.load.case_store import CaseRef
from agentv.tasks.plan.expand import Job


class _Jobs(Sequence[Job]):
    """Jobs of a table by position: ``table`` and ``positions`` say which."""

    _table: JobTable
    _positions: Sequence[int]

    @property
    def table(self) -> JobTable:
        return self._table

    @property
    def positions(self) -> Sequence[int]:
        return self._positions

    def __len__(self) -> int:
        return len(self.positions)

    @overload
    def __getitem__(self, i: int) -> Job: ...

    @overload
    def __getitem__(self, i: slice) -> JobView: ...

    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return JobView(self.table, self.positions[i])
        return self.table.job(self.positions[i])

    def __iter__(self) -> Iterator[Job]:
        job = self.table.job
        return (job(p) for p in self.positions)


class JobTable(_Jobs):
    def __init__(self) -> None:
        self._sources: list[Any] = []  # each case store (or built EvalCase) once
        self._source_ix: dict[int, int] = {}
        self._source_of, self._index = array("I"), array("i")  # index -1: an EvalCase
        self._targets: list[str] = []
        self._target_ix: dict[str, int] = {}
        self._target_of, self._trial = array("I"), array("I")
        self.begun = bytearray()  # the jobs the runner (``runner``) began
        self.runner: object | None = None
        self._table = self

    @property
    def positions(self) -> Sequence[int]:
        return range(len(self._trial))

    def add(self, case: Any, target: str, trial: int = 0) -> None:
        """One job of ``case`` (an ``EvalCase`` or ``CaseRef``) on ``target``."""
        ref = isinstance(case, CaseRef)
        source, index = (case.store, case.index) if ref else (case, -1)
        s = self._source_ix.get(id(source))
        if s is None:
            s = self._source_ix[id(source)] = len(self._sources)
            self._sources.append(source)
        t = self._target_ix.get(target)
        if t is None:
            t = self._target_ix[target] = len(self._targets)
            self._targets.append(target)
        self._source_of.append(s)
        self._index.append(index)
        self._target_of.append(t)
        self._trial.append(trial)
        self.begun.append(0)

    def job(self, position: int) -> Job:
        index = self._index[position]
        source = self._sources[self._source_of[position]]
        job = Job(source if index < 0 else CaseRef(source, index),
                  self._targets[self._target_of[position]], self._trial[position])
        job.place(self, position)
        return job

    def file_of(self, position: int) -> str:
        return str(self._sources[self._source_of[position]].file)

    def target_of(self, position: int) -> str:
        return self._targets[self._target_of[position]]


class JobView(_Jobs):
    """Some jobs of a table, by position."""

    def __init__(self, table: JobTable, positions: Sequence[int]) -> None:
        self._table, self._positions = table, positions


def not_done(jobs: Sequence[Job], done: set[str]) -> Sequence[Job]:
    """``jobs`` but those whose key is ``done`` (a continued run's records)."""
    return kept(jobs, lambda job: job.key not in done) if done else jobs


def kept(jobs: Sequence[Job], keep: Callable[[Job], bool]) -> Sequence[Job]:
    """The jobs ``keep`` keeps, in order (a view of a table's)."""
    if not isinstance(jobs, _Jobs):
        return [job for job in jobs if keep(job)]
    table = jobs.table
    return JobView(table, array("I", (p for p in jobs.positions if keep(table.job(p)))))


def grouped(jobs: Sequence[Job]) -> dict[tuple[str, str], Sequence[Job]]:
    """The jobs by (eval file, target), in order (no case is built)."""
    if not isinstance(jobs, _Jobs):
        groups: dict[tuple[str, str], Any] = {}
        for job in jobs:
            groups.setdefault((job.file, job.target), []).append(job)
        return groups
    table = jobs.table
    found: dict[tuple[str, str], array] = {}
    for p in jobs.positions:
        found.setdefault((table.file_of(p), table.target_of(p)), array("I")).append(p)
    return {key: JobView(table, positions) for key, positions in found.items()}
