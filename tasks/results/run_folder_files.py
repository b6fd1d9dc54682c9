"""The files of a test's run-folder entry that describe its execution, as AgentV 4.42.4
writes them: ``outputs/trace.json`` (``tasks.results.run_folder_trace``),
``outputs/transcript.jsonl`` (``tasks.results.run_folder_transcript``) and the task bundle
``task/EVAL.yaml`` + ``task/targets.yaml`` (``tasks.results.run_folder_task``), and the
index row's keys that point at them (``transcript_path``, ``task_dir``, ``eval_path``,
``targets_path``) or identify the trace (``projection_identity``, ``export_metadata``).

What a record's trace holds comes from the engine (``run_trace``: the input's and the
answer's messages, the provider, the eval file — ``tasks.engine.record_rules``); a record
without it (another engine's, or read back from a results file) gets its input and answer."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentv.evaluators.base import EvalContext
from agentv.evaluators.trace4 import trace_messages as _trace4_messages
from agentv.tasks.load.targets import repo_relative
from agentv.tasks.results.run_folder_task import bundle
from agentv.tasks.results.run_folder_trace import envelope
from agentv.tasks.results.run_folder_transcript import transcript_lines

_MESSAGE_KEYS = (("role", "role"), ("name", "name"), ("content", "content"),
                 ("start_time", "startTime"), ("end_time", "endTime"),
                 ("duration_ms", "durationMs"), ("metadata", "metadata"),
                 ("token_usage", "tokenUsage"))
_CALL_KEYS = (("tool", "tool"), ("input", "input"), ("output", "output"), ("id", "id"),
              ("status", "status"), ("start_time", "startTime"), ("end_time", "endTime"),
              ("duration_ms", "durationMs"))


def wire_message(message: dict[str, Any]) -> dict[str, Any]:
    """A message as AgentV's transcript wire (snake_case, its keys only)."""
    out = {k: message.get(k, message.get(c)) for k, c in _MESSAGE_KEYS
           if k in message or c in message}
    calls = message.get("tool_calls") or message.get("toolCalls")
    if isinstance(calls, list) and calls:
        out["tool_calls"] = [{k: c.get(k, c.get(alt)) for k, alt in _CALL_KEYS
                              if c.get(k, c.get(alt)) is not None}
                             for c in calls if isinstance(c, dict)]
    return {k: v for k, v in out.items() if v is not None or k == "content"}


def trace_messages(record: dict[str, Any], inputs: list[dict[str, Any]],
                   outputs: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """The trace's messages: the input's then the answer's (AgentV's error text when the
    target failed), as ``evaluators.trace4`` orders them."""
    answer = str(record.get("candidate_answer") or "")
    if record.get("error") and not answer and not outputs:
        answer = f"Error occurred: {record['error']}"
    ctx = EvalContext(eval_id=str(record.get("test_id") or ""), question="",
                      candidate_answer=answer, input_messages=inputs,
                      output_messages=outputs or None)
    return [wire_message(m) for m in _trace4_messages(ctx) if isinstance(m, dict)]


def _inputs(record: dict[str, Any]) -> list[dict[str, Any]]:
    request = record.get("lm_provider_request") or record.get("agent_provider_request") or {}
    if not isinstance(request, dict):
        return []
    if isinstance(request.get("chat_prompt"), list):
        return [m for m in request["chat_prompt"] if isinstance(m, dict)]
    return [{"role": "user", "content": request["question"]}] if request.get("question") \
        else []


def traced(record: dict[str, Any]) -> dict[str, Any]:
    """The record as its trace reads it: AgentV's keys (``test_id``, ``suite``) and its
    ``messages``, ``outputs`` (the answer's messages), ``provider`` and ``eval_file``."""
    given = record.get("run_trace")
    source: dict[str, Any] = given if isinstance(given, dict) else {}
    view = {**record, "test_id": record.get("test_id", record.get("eval_id")),
            "suite": record.get("suite", record.get("dataset"))}
    inputs: list[dict[str, Any]] = source["inputs"] if isinstance(source.get("inputs"), list) \
        else _inputs(record)
    outputs = source.get("outputs") if isinstance(source.get("outputs"), list) else None
    eval_file = source.get("file")
    if not eval_file and isinstance(record.get("case_key"), str):
        eval_file = record["case_key"].split("::")[0]
    return {"record": view, "messages": trace_messages(view, inputs, outputs),
            "outputs": outputs, "provider": source.get("provider"), "eval_file": eval_file}


def js_numbers(value: Any) -> Any:
    """``value`` with whole floats as integers (JavaScript writes 1.0 as ``1``)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: js_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [js_numbers(v) for v in value]
    return value


class TestFiles:
    """The trace, transcript and task bundle of each test of a run folder ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.targets: dict[str, str] = {}  # target name -> its targets file
        self._bundles: dict[str, dict[str, str] | None] = {}  # test folder -> its bundle

    @property
    def run_id(self) -> str:
        return self.root.resolve().name  # AgentV: the folder's name

    def _envelope(self, seen: dict[str, Any]) -> dict[str, Any]:
        eval_file = seen["eval_file"]
        eval_path = repo_relative(eval_file) if eval_file else None
        return js_numbers(envelope(seen["record"], seen["messages"], seen["provider"],
                                   eval_path, self.run_id))

    def _bundle(self, seen: dict[str, Any], sub: str) -> dict[str, str] | None:
        if sub not in self._bundles:
            record, eval_file = seen["record"], seen["eval_file"]
            found = None
            if eval_file and Path(eval_file).is_file() and record.get("target"):
                found = bundle(eval_file, str(record.get("test_id")), str(record["target"]),
                               self.targets)
            self._bundles[sub] = found
        return self._bundles[sub]

    def linked(self, record: dict[str, Any], sub: str) -> dict[str, Any]:
        """The index row's keys of the test's trace, transcript and bundle."""
        seen = traced(record)
        env = self._envelope(seen)
        paths: dict[str, Any] = {}
        if "transcript_path" in env["artifacts"]:
            paths["transcript_path"] = f"{sub}/outputs/transcript.jsonl"
        if self._bundle(seen, sub) is not None:
            paths.update(task_dir=f"{sub}/task", eval_path=f"{sub}/task/EVAL.yaml",
                         targets_path=f"{sub}/task/targets.yaml")
        paths.update(projection_identity=env["projection_identity"],
                     export_metadata=env["export_metadata"])
        return paths

    def texts(self, record: dict[str, Any], sub: str) -> dict[str, str]:
        """Each file's path in the test's folder and its text (unscrubbed). A record this
        run did not produce (``--resume``'s earlier ones) leaves the files it finds."""
        if "run_trace" not in record and (self.root / sub / "outputs" / "trace.json").exists():
            return {}
        seen = traced(record)
        env = self._envelope(seen)
        out = {"outputs/trace.json": json.dumps(env, indent=2, ensure_ascii=False) + "\n"}
        if "transcript_path" in env["artifacts"]:
            lines = transcript_lines(env, seen["record"].get("test_id"),
                                     seen["record"].get("target"))
            out["outputs/transcript.jsonl"] = "".join(
                json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n"
                for line in lines)
        found = self._bundle(seen, sub)
        self._bundles.pop(sub, None)
        for name, text in (found or {}).items():
            out[f"task/{name}"] = text
        return out
