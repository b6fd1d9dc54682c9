"""``RunLedger``: where a run's records go as each case completes — the locked results
writer (secrets scrubbed), the lists of case errors and evaluator problems the console and
the summary report, the console's ``on_record``. A failed write stops the run."""
from __future__ import annotations

from typing import Any, Callable

from agentv.tasks.engine.jobs import Record, RunControl
from agentv.tasks.plan.resume import Finished
from agentv.tasks.results.problems import case_file, evaluator_problems
from agentv.tasks.results.write import ResultWriter


class ThresholdCount:
    """AgentV's per-test threshold (``--threshold``, an eval file's ``execution.threshold``):
    of the cases of such files that ran without an error, how many scored at or above it.
    ``thresholds``: eval file (as the records' ``case_key`` names it) -> threshold."""

    def __init__(self, thresholds: dict[str, float] | None = None) -> None:
        self.thresholds = thresholds or {}
        self.scored = self.passed = 0

    def add(self, record: Record | None) -> None:
        threshold = self.thresholds.get(case_file(record)) if record else None
        if threshold is None or record is None or record.get("error"):
            return
        score = record.get("score")
        self.scored += 1
        self.passed += isinstance(score, (int, float)) and score >= threshold

    @property
    def failed(self) -> int:
        return self.scored - self.passed


class RunLedger:
    def __init__(self, writer: ResultWriter, control: RunControl,
                 on_record: Callable[[Record], None] | None = None,
                 finished: Finished | None = None,
                 thresholds: dict[str, float] | None = None):
        self.writer, self.control, self.on_record = writer, control, on_record
        self.errors: list[dict[str, Any]] = []
        self.warnings: list[dict[str, Any]] = []
        self.done_keys: set[str] = set()
        self.threshold = ThresholdCount(thresholds)
        self.carry: list[Record] = []
        if finished is not None:  # continuing: the records already in the file
            self.done_keys = finished.keys
            self.errors = [{k: r.get(k) for k in ("eval_id", "target", "error")}
                           for r in finished.records if r.get("error")]
            self.carry = finished.carry
            for record in () if finished.carry else finished.records:
                self.threshold.add(record)

    def begin(self) -> None:
        """The run starts now: a fresh results file is emptied (``--retry-errors``: the
        earlier run's records it keeps are written first)."""
        self.writer.begin()
        carry, self.carry = self.carry, []
        for record in carry:
            self.threshold.add(self.writer.write(record))

    def record_finished(self, record: Record) -> Record | None:
        """Write one record (scrubbed of secrets); returns what was written. A write failure
        stops the run: nothing new starts, the file keeps only whole records (resumable)."""
        control = self.control
        if control.io_error is not None:
            control.skipped += 1
            return None
        try:
            record = self.writer.write(record)
        except OSError as err:
            control.io_error = f"{self.writer.path}: cannot write results: {err.strerror or err}"
            control.skipped += 1
            control.request_stop()
            return None
        where = {"eval_id": record["eval_id"], "target": record["target"],
                 "file": case_file(record)}
        self.threshold.add(record)
        if record.get("error") and not record.get("budget_exceeded"):  # summed up instead
            self.errors.append({**where, "error": record["error"]})
        for problem in evaluator_problems(record.get("evaluator_results")):
            (self.errors if problem.is_error else self.warnings).append(
                {**where, "evaluator": problem.evaluator, "error": problem.message})
        if self.on_record:
            self.on_record(record)
        return record
