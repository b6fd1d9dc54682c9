"""``code_judge`` / ``code`` (v2) and ``code-grader`` (AgentV 4.x): a script scores the answer.

One class and one way to run the script: through the sandbox layer (``providers.process``:
supervised, timed out, no network, nothing writable), in `cwd` (default: the eval file's
folder), with the declared `env` and, for an agent's workspace, ``AGENTV_WORKSPACE_PATH``; keys
the class does not know reach the script as `config` (merged under `config:`'s own).

The generation's protocol (``Protocol``, chosen once by the suite's loader:
``base.agentv4_rules``) is what the script reads and how its output becomes the record:

- v2 (`script`): stdin carries the README's keys and AgentV 2's (``judge_payload``); a string
  runs through the shell; the script prints ``{score, hits, misses, reasoning}`` and optionally
  ``details`` (kept as is, with any other keys it printed — AgentV's ``aggregate_metrics.ts``
  reads ``evaluator_results[].details``); a non-zero exit, a timeout or output without a score
  is this evaluator's error (score 0, error recorded); the request is ``{script: [argv], cwd}``.
- 4.x (`command`, or its old name `script`): stdin is AgentV 4.42.4's snake_case payload
  (``grader_payload``); a string is split as a shell would; the script prints ``{score?,
  assertions: [{text, passed, evidence?}], details?}`` (no score: the share of passed
  assertions); output that is not a JSON object follows the exit-code convention (exit 0 scores
  1, else 0; stdout is the assertion's text); a non-zero exit with JSON output or with stderr, a
  timeout or a command that cannot start scores 0 with the assertion "Code evaluator failed: …"
  (AgentV's rule: a grader failure, not a skip); the request is ``{command: [argv], cwd}``.
"""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, ClassVar

from pydantic import (
    AliasChoices,
    Field,
    PrivateAttr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from agentv.evaluators import trace4
from agentv.evaluators.base import EvalContext, Evaluator, EvaluatorResult, agentv4_rules, clamp01
from agentv.evaluators.jsonutil import clean_items, first_json_object
from agentv.providers.process.environment import child_env
from agentv.providers.process.sandbox import grader_profile
from agentv.providers.process.supervision import ProcessResult, ProcessTimeout, run_process
from agentv.providers.secret_fields import SECRET
from agentv.providers.secrets import cut, tail

DEFAULT_TIMEOUT_S = 60.0


def judge_payload(ctx: EvalContext) -> dict[str, Any]:
    """v2's stdin: the README's keys and AgentV 2's."""
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


def grader_payload(ctx: EvalContext, config: dict[str, Any]) -> dict[str, Any]:
    """AgentV 4.42.4's stdin (snake_case)."""
    usage = ctx.usage
    return {
        "criteria": ctx.expected_outcome, "expected_output": ctx.expected_messages,
        "output": ctx.candidate_answer, "messages": trace4.trace_messages(ctx),
        "input_files": ctx.input_files, "input": ctx.input_messages,
        "metadata": ctx.case_metadata or None, "trace": trace4.trace(ctx),
        "trace_summary": trace4.trace_summary(ctx), "token_usage": trace4.token_usage(ctx),
        "cost_usd": usage.cost_usd if usage is not None else None,
        "duration_ms": trace4.duration_ms(ctx), "start_time": None, "end_time": None,
        "file_changes": ctx.file_changes, "workspace_path": ctx.workspace_path,
        "config": config or None,
    }


def _v2_payload(ctx: EvalContext, config: dict[str, Any]) -> dict[str, Any]:
    return {**judge_payload(ctx), "config": config}


@dataclass(frozen=True)
class Protocol:
    """A generation's script protocol: its command's key (in its files and in the record's
    request), what the script reads, and how its output and failures become the result."""
    key: str
    payload: Callable[[EvalContext, dict[str, Any]], dict[str, Any]]
    indent: int | None
    read: Callable[["CodeJudge", ProcessResult], EvaluatorResult]
    failed: Callable[["CodeJudge", str], EvaluatorResult]


# ------------------------------------------------------------------ v2: a JSON verdict
def _read_verdict(judge: CodeJudge, proc: ProcessResult) -> EvaluatorResult:
    if proc.returncode != 0:
        end = tail((proc.stderr or proc.stdout).strip(), 500)
        return _v2_failure(judge, f"script exited with code {proc.returncode}: {end}")
    data = first_json_object(proc.stdout)
    if data is None or not isinstance(data.get("score"), (int, float)):
        return _v2_failure(judge, f"script output is not a JSON verdict: "
                                  f"{cut(proc.stdout, 300)!r}")
    reasoning = data.get("reasoning")
    return judge.result(clamp01(data["score"]), clean_items(data.get("hits")),
                        clean_items(data.get("misses")),
                        reasoning if isinstance(reasoning, str) else "",
                        details=verdict_details(data),
                        evaluator_provider_request=judge.provider_request())


def _v2_failure(judge: CodeJudge, message: str) -> EvaluatorResult:
    return judge.result(0.0, misses=[cut(message, 300)],
                        reasoning=f"code_judge failed: {message}", error=message,
                        evaluator_provider_request=judge.provider_request() | {"error": message})


def verdict_details(data: dict[str, Any]) -> dict[str, Any] | None:
    """The script's ``details`` object as is, plus any other keys it printed beside the
    verdict (never nested one level deeper)."""
    details = dict(data["details"]) if isinstance(data.get("details"), dict) else {}
    for key, value in data.items():
        if key not in ("score", "hits", "misses", "reasoning", "details"):
            details.setdefault(key, value)
    return details or None


# ------------------------------------------------------------------ 4.x: assertions or exit code
def _read_assertions(judge: CodeJudge, proc: ProcessResult) -> EvaluatorResult:
    stdout, stderr = proc.stdout.strip(), (proc.stderr or "").strip()
    if proc.returncode != 0 and (stdout.startswith(("{", "[")) or stderr):
        message = f"Code evaluator exited with code {proc.returncode}"
        return _v4_failure(judge, f"{message}: {stderr[-1000:]}" if stderr else message)
    try:
        data = json.loads(stdout)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        passed = proc.returncode == 0
        label = stdout or ("exit 0" if passed else f"exit {proc.returncode}")
        return _with_assertions(judge, 1.0 if passed else 0.0, [{"text": label,
                                                                "passed": passed}])
    items = assertion_items(data.get("assertions"))
    score = data.get("score")
    if not isinstance(score, (int, float)) or isinstance(score, bool):
        score = sum(a["passed"] for a in items) / len(items) if items else 0.0
    details = data.get("details") if isinstance(data.get("details"), dict) else None
    return _with_assertions(judge, max(0.0, min(1.0, float(score))), items, details)


def assertion_items(raw: Any) -> list[dict[str, Any]]:
    """A script's ``assertions`` as AgentV keeps them: ``{text, passed, evidence?}``."""
    if not isinstance(raw, list):
        return []
    return [{"text": str(a["text"]), "passed": bool(a.get("passed")),
             **({"evidence": a["evidence"]} if isinstance(a.get("evidence"), str) else {})}
            for a in raw if isinstance(a, dict) and isinstance(a.get("text"), str)]


def _with_assertions(judge: CodeJudge, score: float, items: list[dict[str, Any]],
                     details: dict[str, Any] | None = None) -> EvaluatorResult:
    return judge.result(score, hits=[a["text"] for a in items if a["passed"]],
                        misses=[a["text"] for a in items if not a["passed"]],
                        assertions=items, details=details,
                        evaluator_provider_request=judge.provider_request())


def _v4_failure(judge: CodeJudge, message: str) -> EvaluatorResult:
    return _with_assertions(judge, 0.0, [{"text": f"Code evaluator failed: {message}",
                                          "passed": False}])


V2 = Protocol(key="script", payload=_v2_payload, indent=None, read=_read_verdict,
              failed=_v2_failure)
AGENTV4 = Protocol(key="command", payload=grader_payload, indent=2, read=_read_assertions,
                   failed=_v4_failure)


class CodeJudge(Evaluator):
    """A script in any language (`script` or `command`) scores the answer: v2's JSON verdict
    `{score, hits, misses, reasoning, details}`, or AgentV 4.x's `{score, assertions, details}`
    or exit code; other keys reach it as `config`."""

    kind = "code_judge"
    extra_keys_are_config: ClassVar[bool] = True
    script: str | list[str] = Field(validation_alias=AliasChoices("command", "script"))
    cwd: str | None = None
    config: dict[str, Any] | None = None
    timeout_seconds: float = Field(default=DEFAULT_TIMEOUT_S, gt=0)
    env: dict[str, str] | None = Field(default=None, json_schema_extra=SECRET)  # secret values
    _protocol: Protocol = PrivateAttr(default=V2)

    @field_validator("script", mode="before")
    @classmethod
    def _argv(cls, value: Any, info: ValidationInfo) -> Any:
        """4.x splits a command line as AgentV does; v2 runs it through the shell."""
        if isinstance(value, str) and agentv4_rules(info):
            try:
                return shlex.split(value)
            except ValueError as err:
                raise ValueError(f"cannot split the command ({err})") from None
        if isinstance(value, list) and agentv4_rules(info):
            return [str(v) for v in value]
        return value

    @field_validator("script")
    @classmethod
    def _not_empty(cls, value: str | list[str]) -> str | list[str]:
        if not value or (isinstance(value, str) and not value.strip()):
            raise ValueError("must not be empty")
        return value

    @model_validator(mode="after")
    def _generation(self, info: ValidationInfo) -> "CodeJudge":
        self._protocol = AGENTV4 if agentv4_rules(info) else V2
        return self

    @property
    def command_key(self) -> str:
        """The command's key as the suite's generation spells it."""
        return self._protocol.key

    @property
    def resolved_cwd(self) -> str:
        return str((Path(self.base_dir) / self.cwd).resolve()) if self.cwd \
            else str(Path(self.base_dir).resolve())

    def merged_config(self) -> dict[str, Any]:
        return {**(self.model_extra or {}), **(self.config or {})}

    def provider_request(self) -> dict[str, Any]:
        argv = shlex.split(self.script) if isinstance(self.script, str) else list(self.script)
        return {self._protocol.key: argv, "cwd": self.resolved_cwd}

    async def evaluate(self, ctx: EvalContext) -> EvaluatorResult:
        return await self.run_script(self._protocol.payload(ctx, self.merged_config()))

    async def run_script(self, payload: dict[str, Any]) -> EvaluatorResult:
        """Run the script on ``payload``; its output read by the generation's protocol."""
        protocol, cwd = self._protocol, self.resolved_cwd
        if not Path(cwd).is_dir():
            return protocol.failed(self, f"cwd does not exist: {cwd}")
        workspace = [w for w in [payload.get("workspace_path")] if w]
        env = child_env(extra={**(self.env or {}),  # OS env + declared, not the whole .env
                               **({"AGENTV_WORKSPACE_PATH": workspace[0]} if workspace else {})})
        try:
            proc = await run_process(self.script, cwd=cwd, env=env, timeout=self.timeout_seconds,
                                     stdin=json.dumps(payload, indent=protocol.indent),
                                     sandbox=grader_profile(self.script, cwd, workspace))
        except ProcessTimeout:
            return protocol.failed(self, f"timed out after {self.timeout_seconds:g}s")
        except OSError as err:
            return protocol.failed(self, str(err))
        return protocol.read(self, proc)
