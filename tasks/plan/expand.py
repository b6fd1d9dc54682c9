"""Cases × targets × trials → jobs, and each case rendered into a typed ``Request``.

The prompt content is AgentV's (``tasks.plan.prompts``): LLM targets get ``chat`` (file content
inlined, guidelines in the system message); agents and command targets get ``question``
with ``<file: path="…">`` references, and the files as data (``guideline_paths``,
``input_files``) from which each provider renders its own preread block. Judges get the
``@[Role]:`` transcript.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from agentv.providers.base import ConfigError, Request
from agentv.tasks.load.files import EvalCase
from agentv.tasks.load.messages import Message, Segment
from agentv.tasks.plan.prompts import Mode, guideline_segments, llm_chat, prompt_inputs


@dataclass(slots=True, eq=False)
class Job:
    """One case × target × trial. ``key`` is ``file::eval_id::target::trial``;
    ``begun_by``: the job runner that began it (a batch run again runs no case twice)."""

    case: EvalCase
    target: str
    trial: int = 0
    begun_by: object | None = field(default=None, repr=False)
    _key: str | None = field(default=None, init=False, repr=False)

    @property
    def key(self) -> str:
        if self._key is None:
            self._key = case_key(self.case.file, self.case.id, self.target, self.trial)
        return self._key

    @property
    def file(self) -> str:
        return self.case.file

    @property
    def case_id(self) -> str:
        return self.case.id

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Job) and (self.key, self.target, self.trial) == (
            other.key, other.target, other.trial)

    def __hash__(self) -> int:
        return hash(self.key)

    def __reduce__(self) -> tuple[Any, ...]:  # shipped elsewhere: not who began it here
        return Job, (self.case, self.target, self.trial)


def not_done(jobs: Sequence[Job], done: set[str]) -> list[Job]:
    """``jobs`` but those whose key is ``done`` (a continued run's records)."""
    return [job for job in jobs if job.key not in done] if done else list(jobs)


def case_key(file: str, eval_id: str, target: str, trial: int) -> str:
    """``file::eval_id::target::trial`` (the target's name: a key ``name @ targets file``
    is told apart by the file already)."""
    from agentv.tasks.load.selection import target_name
    from agentv.tasks.load.targets import repo_relative
    return f"{repo_relative(file)}::{eval_id}::{target_name(target)}::{trial}"


def _file_block(seg: Segment) -> str:
    return f'<file path="{seg.display or seg.basename}">\n{seg.text}\n</file>'


def message_text(msg: Message, files: str = "inline") -> str:
    """Render a message: files ``inline`` (<file> blocks), as ``attached`` markers, or
    ``paths``; guideline files are always left out (they travel separately)."""
    parts = []
    for seg in msg.segments:
        if seg.kind == "text":
            parts.append(seg.text)
        elif seg.is_guideline:
            if files == "attached":
                parts.append(f"<Attached: {seg.basename}>")
        elif files == "inline":
            parts.append(_file_block(seg))
        elif files == "attached":
            parts.append(f"<Attached: {seg.basename}>")
        else:
            parts.append(f"<file: {seg.path}>")
    return "\n".join(p for p in parts if p)


def attachment_paths(case: EvalCase) -> list[str]:
    return [s.path for m in case.input_messages for s in m.segments
            if s.kind == "file" and not s.is_guideline and s.path]


def transcript(messages: list[Message], files: str = "attached") -> str:
    return "\n\n".join(f"@[{m.role.capitalize()}]:\n{message_text(m, files)}" for m in messages)


def reference_answer(case: EvalCase) -> str:
    msgs = case.expected_messages
    if not msgs:
        return ""
    if len(msgs) == 1:
        return message_text(msgs[0])
    return transcript(msgs, files="inline")


def prompt_mode(provider_is_agent: bool) -> Mode:
    """AgentV: agents and command (cli) targets get file references, LLMs file content."""
    return "agent" if provider_is_agent else "lm"


def build_request(case: EvalCase, *, is_agent: bool, trial: int = 0, attempt: int = 1
                  ) -> Request:
    inputs = prompt_inputs(case.input_messages, prompt_mode(is_agent))
    guidelines = guideline_segments(case.input_messages)
    system = "\n\n".join(message_text(m) for m in case.input_messages if m.role == "system")
    return Request(
        eval_id=case.id, question=inputs.question,
        chat=[] if is_agent else llm_chat(inputs),
        chat_prompt=inputs.chat_prompt, system_prompt=system or None,
        guidelines=inputs.guidelines, guideline_paths=[s.path for s in guidelines if s.path],
        input_files=attachment_paths(case), attempt=attempt, trial=trial,
        input_messages=[m.to_dict() for m in case.input_messages],
        eval_file=case.file, workspace=case.workspace,
    )


def writes_agent_request(provider_kind: str) -> bool:
    """AgentV's agent providers (the ``agent`` family: codex, vscode, claude...) keep
    ``agent_provider_request``; every other target (LLMs, cli commands, mock, a Python
    callable) keeps ``lm_provider_request``."""
    from agentv.providers.registry import facts
    try:
        return facts(provider_kind).agent_record
    except ConfigError:  # not a registered kind (a typed API callable)
        return False


def provider_request_record(request: Request, provider_kind: str,
                            error: str | None = None) -> tuple[str, dict[str, Any]]:
    """(key, value) the record keeps of the request (never keys), AgentV's shapes:
    ``agent_provider_request`` {question, guideline_paths} for coding agents, else
    ``lm_provider_request``: {chat_prompt} for multi-turn prompts, {question, guidelines}
    otherwise; an error record adds guideline_paths (LLM) and the error."""
    if writes_agent_request(provider_kind):
        out: dict[str, Any] = {"question": request.question,
                               "guideline_paths": request.guideline_paths}
        return "agent_provider_request", out | ({"error": error} if error is not None else {})
    if request.chat_prompt:
        out = {"chat_prompt": request.chat_prompt}
    else:
        out = {"question": request.question, "guidelines": request.guidelines}
    if error is not None:
        out |= {"guideline_paths": request.guideline_paths, "error": error}
    return "lm_provider_request", out


def prompt_dump(request: Request) -> dict[str, Any]:
    return {"eval_id": request.eval_id, "question": request.question,
            "guidelines": request.guidelines, "guideline_paths": request.guideline_paths,
            "chat_prompt": request.chat_prompt}


def user_segments(case: EvalCase) -> list[dict[str, Any]]:
    return [{"type": s.kind, "value": s.text if s.kind == "text" else s.path}
            for m in case.input_messages if m.role == "user" for s in m.segments
            if not s.is_guideline]

