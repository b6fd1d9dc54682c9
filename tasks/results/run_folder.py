"""AgentV 4.42.4's run folder (``--output DIR``), fed by the results writer's sink: the results
file is ``DIR/index.jsonl`` (the one writer's), each row linking its test's folder
``DIR/<suite>/<test_id>/`` — ``grading.json``, ``timing.json``, ``input.md``,
``outputs/answer.md``, ``outputs/response.md``, AgentV's trace envelope
``outputs/trace.json`` and its ``outputs/transcript.jsonl`` (``tasks.results.run_folder_files``)
and the task bundle ``task/EVAL.yaml`` + ``task/targets.yaml`` — and at the end
``DIR/timing.json`` and ``DIR/benchmark.json``, with AgentV's keys and sums (its artifact
writer). Every byte is scrubbed of secrets. Not written: a bundle's copied ``task/files/`` and
``task/graders/``."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agentv.tasks.load.redact import redact
from agentv.tasks.results.run_folder_files import TestFiles
from agentv.tasks.results.run_folder_stats import benchmark, grading, timing

UNSAFE = re.compile(r'[/\\:*?"<>|]')


def _segment(value: Any, fallback: str) -> str:
    text = str(value or "").strip()
    return UNSAFE.sub("_", text) if text else fallback


def _input_text(record: dict[str, Any]) -> str | None:
    """AgentV's input.md: each input message as ``@[role]:`` and its content."""
    request = record.get("lm_provider_request") or record.get("agent_provider_request") or {}
    messages = request.get("chat_prompt") if isinstance(request, dict) else None
    if not messages and isinstance(request, dict) and request.get("question"):
        messages = [{"role": "user", "content": request["question"]}]
    if not messages:
        return None
    return "\n\n".join(f"@[{m.get('role')}]:\n" + (m["content"] if isinstance(
        m.get("content"), str) else json.dumps(m.get("content"), ensure_ascii=False))
        for m in messages if isinstance(m, dict))


def _answer(record: dict[str, Any]) -> str:
    """The answer, or (the target failed) AgentV's ``Error occurred: <error>``."""
    answer = record.get("candidate_answer")
    if answer:
        return str(answer)
    return f"Error occurred: {record['error']}" if record.get("error") else ""


ROW_KEYS = ("timestamp", "test_id", "eval_id", "target", "score", "scores",
            "evaluator_results", "execution_status", "verdict", "duration_ms", "latency_ms",
            "token_usage", "usage", "cost_usd", "trace_summary")


class RunFolder:
    """One run's folder; ``linked`` adds a record's artifact paths (before it is written),
    ``add`` writes its test's folder, ``finish`` the run's timing and benchmark (of every
    record in ``index.jsonl`` when the run ``continues`` the folder: ``--resume``)."""

    def __init__(self, root: str | Path, continues: bool = False) -> None:
        self.root = Path(root)
        self.continues = continues
        self.rows: list[dict[str, Any]] = []  # what the benchmark needs of each record
        self.eval_files: list[str] = []
        self.planned: int | None = None
        self.files = TestFiles(self.root)  # trace, transcript and task bundle of each test

    def plan(self, eval_files: list[str], planned: int,
             targets: dict[str, str] | None = None) -> None:
        """``targets``: each target's name -> the targets file defining it."""
        self.eval_files, self.planned = eval_files, planned
        self.files.targets = dict(targets or {})

    @staticmethod
    def subdir(record: dict[str, Any]) -> str:
        suite = record.get("suite", record.get("dataset"))
        test = _segment(record.get("test_id", record.get("eval_id")), "unknown")
        return f"{_segment(suite, 'default')}/{test}" if suite else test

    def linked(self, record: dict[str, Any]) -> dict[str, Any]:
        """The record with AgentV's paths of its artifacts (relative to the folder)."""
        sub = self.subdir(record)
        paths = {"artifact_dir": sub, "grading_path": f"{sub}/grading.json",
                 "timing_path": f"{sub}/timing.json"}
        if _input_text(record):
            paths["input_path"] = f"{sub}/input.md"
        if _answer(record):
            answer = f"{sub}/outputs/answer.md"
            paths.update(output_path=answer, answer_path=answer,
                         response_path=f"{sub}/outputs/response.md")
        paths.update(self.files.linked(record, sub))
        return {**record, **paths}

    def add(self, record: dict[str, Any]) -> None:
        folder = self.root / self.subdir(record)
        (folder / "outputs").mkdir(parents=True, exist_ok=True)
        self._json(folder / "grading.json", grading(record))
        self._json(folder / "timing.json", timing([record]))
        text = _input_text(record)
        if text:
            self._text(folder / "input.md", text)
        answer = _answer(record)
        if answer:
            self._text(folder / "outputs" / "answer.md", answer)
            self._text(folder / "outputs" / "response.md", answer)
        for name, text in self.files.texts(record, self.subdir(record)).items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            self._text(folder / name, text)
        if not self.continues:
            self.rows.append({k: record.get(k) for k in ROW_KEYS})

    def finish(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        rows = self._index_rows() if self.continues else self.rows
        self._json(self.root / "timing.json", timing(rows))
        eval_file = ", ".join(str(Path(f).resolve()) for f in self.eval_files)
        self._json(self.root / "benchmark.json", benchmark(rows, eval_file, self.planned))

    def _index_rows(self) -> list[dict[str, Any]]:
        """The rows of every record the folder's results hold (earlier runs' too)."""
        rows = []
        with open(self.root / "index.jsonl", encoding="utf-8") as fh:
            for line in fh:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict):
                    rows.append({k: record.get(k) for k in ROW_KEYS})
        return rows

    @staticmethod
    def _text(path: Path, text: str) -> None:
        path.write_text(redact(text), encoding="utf-8")

    @classmethod
    def _json(cls, path: Path, value: Any) -> None:
        cls._text(path, json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")
