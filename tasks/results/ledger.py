"""``RunLedger``: where a run's records go as each case completes — the locked results
writer (secrets scrubbed), the lists of case errors and evaluator problems the console and
the summary report, the console's ``on_record``. A failed write stops the run."""
from __future__ import annotations

from typing import Any, Callable

from tasks.engine.jobs import Record, RunControl
from tasks.results.problems import case_file, evaluator_problems
from tasks.plan.resume import Finished
from tasks.results.write import ResultWriter


class RunLedger:
    def __init__(self, writer: ResultWriter, control: RunControl,
                 on_record: Callable[[Record], None] | None = None,
                 finished: Finished | None = None):
        self.writer, self.control, self.on_record = writer, control, on_record
        self.errors: list[dict[str, Any]] = []
        self.warnings: list[dict[str, Any]] = []
        self.done_keys: set[str] = set()
        if finished is not None:  # --resume: the records already in the file
            self.done_keys = finished.keys
            self.errors = [{k: r.get(k) for k in ("eval_id", "target", "error")}
                           for r in finished.records if r.get("error")]

    def begin(self) -> None:
        """The run starts now: a fresh results file is emptied."""
        self.writer.begin()

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
        if record.get("error"):
            self.errors.append({**where, "error": record["error"]})
        for problem in evaluator_problems(record.get("evaluator_results")):
            (self.errors if problem.is_error else self.warnings).append(
                {**where, "evaluator": problem.evaluator, "error": problem.message})
        if self.on_record:
            self.on_record(record)
        return record
