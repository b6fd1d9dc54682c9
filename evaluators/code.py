"""``code_judge`` (alias ``code``): score with a script in any language.

The script gets one JSON object on stdin carrying both the README's keys and AgentV's,
and prints ``{score, hits, misses, reasoning}`` and optionally ``details`` (an object, kept
as the result's ``details`` as is — AgentV's ``aggregate_metrics.ts`` reads
``evaluator_results[].details``). The result's ``evaluator_provider_request`` is AgentV's
``{script: [argv], cwd}``. A non-zero exit, a timeout or unparsable output is this
evaluator's error (score 0, error recorded), never the run's.
"""
from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult, clamp01
from agentv.evaluators.jsonutil import first_json_object
from agentv.evaluators.llm_judge import clean_items
from agentv.providers.process.environment import child_env
from agentv.providers.process.sandbox import grader_profile
from agentv.providers.process.supervision import ProcessTimeout, run_process
from agentv.providers.secret_fields import SECRET
from agentv.providers.secrets import cut, tail


def judge_payload(ctx: EvalContext) -> dict[str, Any]:
    return {
        # README keys
        "task": ctx.question, "outcome": ctx.expected_outcome, "expected": ctx.reference_answer,
        "output": ctx.candidate_answer, "system_message": ctx.system_message,
        "guideline_paths": ctx.guideline_paths, "attachments": ctx.input_files,
        "user_segments": ctx.user_segments,
        # AgentV keys
        "eval_id": ctx.eval_id, "question": ctx.question,
        "expected_outcome": ctx.expected_outcome, "reference_answer": ctx.reference_answer,
        "candidate_answer": ctx.candidate_answer, "input_messages": ctx.input_messages,
        "expected_messages": ctx.expected_messages, "output_messages": ctx.output_messages,
        "guideline_files": ctx.guideline_paths, "input_files": ctx.input_files,
        "trace_summary": ctx.trace_summary,
        "file_changes": ctx.file_changes, "workspace_path": ctx.workspace_path,
    }


class CodeJudge(Evaluator):
    """A script in any language scores the answer: its JSON verdict (`details` kept as is;
    `evaluator_provider_request {script: [argv], cwd}`, AgentV's); other keys reach it as
    `config`."""

    kind = "code_judge"
    extra_keys_are_config: ClassVar[bool] = True
    script: str | list[str]
    cwd: str | None = None
    timeout_seconds: float = 60.0
    env: dict[str, str] | None = Field(default=None, json_schema_extra=SECRET)  # secret values

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        payload = judge_payload(ctx)
        payload["config"] = dict(self.model_extra or {})
        return await self.run_script(payload)

    @property
    def resolved_cwd(self) -> str:
        return str((Path(self.base_dir) / self.cwd).resolve()) if self.cwd \
            else str(Path(self.base_dir).resolve())

    def provider_request(self) -> dict[str, Any]:
        """AgentV's ``evaluator_provider_request`` of a code judge."""
        argv = shlex.split(self.script) if isinstance(self.script, str) else list(self.script)
        return {"script": argv, "cwd": self.resolved_cwd}

    async def run_script(self, payload: dict[str, Any]) -> EvaluatorResult:
        cwd = self.resolved_cwd
        if not Path(cwd).is_dir():
            raise FileNotFoundError(f"code_judge cwd does not exist: {cwd}")
        env = child_env(extra=self.env)  # OS env + declared, not the whole .env
        try:
            proc = await run_process(self.script, cwd=cwd, env=env, stdin=json.dumps(payload),
                                     timeout=self.timeout_seconds,
                                     sandbox=grader_profile(self.script, cwd, [
                                         w for w in [payload.get("workspace_path")] if w]))
        except ProcessTimeout:
            return self._failure(f"script timed out after {self.timeout_seconds:g}s")
        if proc.returncode != 0:
            end = tail((proc.stderr or proc.stdout).strip(), 500)
            return self._failure(f"script exited with code {proc.returncode}: {end}")
        data = first_json_object(proc.stdout)
        if data is None or not isinstance(data.get("score"), (int, float)):
            return self._failure(f"script output is not a JSON verdict: {cut(proc.stdout, 300)!r}")
        reasoning = data.get("reasoning")
        return self.result(clamp01(data["score"]), clean_items(data.get("hits")),
                           clean_items(data.get("misses")),
                           reasoning if isinstance(reasoning, str) else "",
                           details=verdict_details(data),
                           evaluator_provider_request=self.provider_request())

    def _failure(self, message: str) -> EvaluatorResult:
        return self.result(0.0, misses=[cut(message, 300)],
                           reasoning=f"code_judge failed: {message}", error=message,
                           evaluator_provider_request=self.provider_request() | {"error": message})


def verdict_details(data: dict[str, Any]) -> dict[str, Any] | None:
    """The script's ``details`` object as is, plus any other keys it printed beside the
    verdict (never nested one level deeper)."""
    details = dict(data["details"]) if isinstance(data.get("details"), dict) else {}
    for key, value in data.items():
        if key not in ("score", "hits", "misses", "reasoning", "details"):
            details.setdefault(key, value)
    return details or None
