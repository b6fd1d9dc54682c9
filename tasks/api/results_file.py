"""``ResultsFile``: the results ``collect_results`` has kept, by request — and, given a path,
appended to that JSONL file (the one results writer: locked, each record one whole ``write``)
before the caller acknowledges them. Records already in the file are kept when it opens, so
a collection that stopped half-way continues it, and a result delivered again is written
once."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentv.evaluators.report import EvalResult, result_from_record
from agentv.tasks.results.write import ResultWriter


def result_key(result: EvalResult) -> str:
    return result.request_id or result.sample_id


def record_of(result: EvalResult) -> dict[str, Any]:
    """The agentv result record written for ``result`` (a minimal one when it has none)."""
    if result.record is not None:
        record = dict(result.record)
    else:
        score = result.score
        record = {"eval_id": result.sample_id, "score": score.value, "error": result.error,
                  "latency_ms": result.latency_ms,
                  "evaluator_results": [{"score": score.value, "reasoning": score.reason,
                                         "verdict": "pass" if score.passed else "fail"}]}
    if result.request_id:
        record["request_id"] = result.request_id
    return record


def result_of(record: dict[str, Any]) -> EvalResult:
    result = result_from_record(record)
    return EvalResult(result.sample_id, result.score, result.latency_ms, result.error, record,
                      record.get("request_id"))


class ResultsFile:
    def __init__(self, path: str | Path | None) -> None:
        self.collected: dict[str, EvalResult] = {}
        self._writer: ResultWriter | None = None
        if path is not None:
            self._writer = ResultWriter(path, append=True, flag="out")
            for line in Path(path).read_text(encoding="utf-8").splitlines():
                if line.strip():
                    result = result_of(json.loads(line))
                    self.collected.setdefault(result_key(result), result)

    def add(self, result: EvalResult) -> None:
        """Keep ``result`` (written to the file first) unless its request is already kept."""
        key = result_key(result)
        if key in self.collected:
            return
        if self._writer is not None:
            self._writer.write(record_of(result))
        self.collected[key] = result

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
