"""AgentV 4.x's ``code-grader``: a command scores the answer.

The command (an argv list, or a string split like a shell would) runs in `cwd` (default: the
eval file's folder) with one JSON object on stdin in AgentV 4.42.4's snake_case shape
(``criteria``, ``expected_output``, ``output``, ``messages``, ``input``, ``input_files``,
``metadata``, ``trace_summary``, ``token_usage``, ``cost_usd``, ``duration_ms``, ``config``,
``file_changes`` and ``workspace_path`` of an agent's workspace, also in
``AGENTV_WORKSPACE_PATH``, …).
It prints ``{score?, assertions: [{text, passed, evidence?}], details?}``: a missing score is
the share of passed assertions. Output that is not a JSON object follows the exit-code
convention: exit 0 scores 1, anything else 0, stdout is the assertion's text. A non-zero exit
with JSON output or with stderr, a timeout or a command that cannot start scores 0 with the
assertion "Code evaluator failed: …" (AgentV's rule: a grader failure, not a skip).
"""
from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field, field_validator

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult
from agentv.providers.process.environment import child_env
from agentv.providers.process.sandbox import grader_profile
from agentv.providers.process.supervision import ProcessTimeout, run_process

DEFAULT_TIMEOUT_S = 60.0


def grader_payload(ctx: EvalContext, config: dict[str, Any]) -> dict[str, Any]:
    usage = ctx.usage
    return {
        "criteria": ctx.expected_outcome, "expected_output": ctx.expected_messages,
        "output": ctx.candidate_answer, "messages": ctx.output_messages or [],
        "input_files": ctx.input_files, "input": ctx.input_messages,
        "metadata": ctx.case_metadata or None, "trace": None,
        "trace_summary": ctx.trace_summary,
        "token_usage": ({"input": usage.input_tokens, "output": usage.output_tokens}
                        if usage is not None else None),
        "cost_usd": usage.cost_usd if usage is not None else None,
        "duration_ms": ctx.latency_ms, "start_time": None, "end_time": None,
        "file_changes": ctx.file_changes, "workspace_path": ctx.workspace_path,
        "config": config or None,
    }


class CodeGrader(Evaluator):
    """A command scores the answer with AgentV 4.x's protocol (JSON on stdin; `{score,
    assertions, details}` or the exit code)."""
    kind = "code-grader"
    extra_keys_are_config: ClassVar[bool] = True
    command: list[str] = Field(min_length=1)
    cwd: str | None = None
    config: dict[str, Any] | None = None
    timeout_seconds: float = Field(default=DEFAULT_TIMEOUT_S, gt=0)

    @field_validator("command", mode="before")
    @classmethod
    def _argv(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return shlex.split(value)
            except ValueError as err:
                raise ValueError(f"cannot split the command ({err})") from None
        return [str(v) for v in value] if isinstance(value, list) else value

    @property
    def resolved_cwd(self) -> str:
        return str((Path(self.base_dir) / self.cwd).resolve()) if self.cwd \
            else str(Path(self.base_dir).resolve())

    def merged_config(self) -> dict[str, Any]:
        return {**(self.model_extra or {}), **(self.config or {})}

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        stdin = json.dumps(grader_payload(ctx, self.merged_config()), indent=2)
        try:
            proc = await run_process(self.command, cwd=self.resolved_cwd, env=child_env(
                extra={"AGENTV_WORKSPACE_PATH": ctx.workspace_path} if ctx.workspace_path
                else None), stdin=stdin, timeout=self.timeout_seconds, sandbox=grader_profile(
                    self.command, self.resolved_cwd,
                    (ctx.workspace_path,) if ctx.workspace_path else ()))
        except ProcessTimeout:
            return self.failed(f"timed out after {self.timeout_seconds:g}s")
        except OSError as err:
            return self.failed(str(err))
        stdout, stderr = proc.stdout.strip(), (proc.stderr or "").strip()
        if proc.returncode != 0 and (stdout.startswith(("{", "[")) or stderr):
            message = f"Code evaluator exited with code {proc.returncode}"
            return self.failed(f"{message}: {stderr[-1000:]}" if stderr else message)
        return self.scored(proc.returncode, stdout)

    def scored(self, returncode: int, stdout: str) -> EvaluatorResult:
        try:
            data = json.loads(stdout)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            passed = returncode == 0
            label = stdout or ("exit 0" if passed else f"exit {returncode}")
            return self.with_assertions(1.0 if passed else 0.0, [{"text": label,
                                                                 "passed": passed}])
        items = [{"text": str(a["text"]), "passed": bool(a.get("passed")),
                  **({"evidence": a["evidence"]} if isinstance(a.get("evidence"), str) else {})}
                 for a in data.get("assertions") or [] if isinstance(a, dict)
                 and isinstance(a.get("text"), str)] if isinstance(data.get("assertions"),
                                                                  list) else []
        score = data.get("score")
        if not isinstance(score, (int, float)) or isinstance(score, bool):
            score = sum(a["passed"] for a in items) / len(items) if items else 0.0
        details = data.get("details") if isinstance(data.get("details"), dict) else None
        return self.with_assertions(max(0.0, min(1.0, float(score))), items, details)

    def with_assertions(self, score: float, items: list[dict[str, Any]],
                        details: dict[str, Any] | None = None) -> EvaluatorResult:
        return self.result(score, hits=[a["text"] for a in items if a["passed"]],
                           misses=[a["text"] for a in items if not a["passed"]],
                           assertions=items, details=details,
                           evaluator_provider_request={"command": self.command,
                                                       "cwd": self.resolved_cwd})

    def failed(self, message: str) -> EvaluatorResult:
        return self.with_assertions(0.0, [{"text": f"Code evaluator failed: {message}",
                                           "passed": False}])
