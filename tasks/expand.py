"""Cases × targets × trials → jobs, and each case rendered into what a target is sent.

LLM targets get the chat prompt: guideline files as a system segment headed
``[[ ## Guidelines ## ]]``, other files inlined as ``<file path=...>`` blocks, prior turns
as messages. Agent targets get the question with a "read these files first" block and
the file paths. Judges get the ``@[Role]:`` transcript.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from providers.base import Request
from tasks.files import EvalCase
from tasks.messages import Message, Segment

GUIDELINES_HEADER = "[[ ## Guidelines ## ]]"


@dataclass
class Job:
    case: EvalCase
    target: str
    trial: int = 0
    key: str = ""

    def __post_init__(self) -> None:
        if not self.key:
            self.key = case_key(self.case.file, self.case.id, self.target, self.trial)


def case_key(file: str, eval_id: str, target: str, trial: int) -> str:
    from tasks.targets import repo_relative
    return f"{repo_relative(file)}::{eval_id}::{target}::{trial}"


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


def guideline_segments(case: EvalCase) -> list[Segment]:
    return [s for m in case.input_messages for s in m.segments if s.kind == "file" and s.is_guideline]


def attachment_paths(case: EvalCase) -> list[str]:
    return [s.path for m in case.input_messages for s in m.segments
            if s.kind == "file" and not s.is_guideline and s.path]


def guidelines_text(case: EvalCase) -> str:
    blocks = [f'<file path="{s.basename}">\n{s.text}\n</file>' for s in guideline_segments(case)]
    return "\n\n".join(blocks)


def transcript(messages: list[Message], files: str = "attached") -> str:
    return "\n\n".join(f"@[{m.role.capitalize()}]:\n{message_text(m, files)}" for m in messages)


def render_question(case: EvalCase) -> str:
    """The question string: the user turn for single-turn cases, else the transcript."""
    turns = [m for m in case.input_messages if m.role != "system"]
    if len(turns) == 1:
        return message_text(turns[0])
    return transcript(turns, files="inline")


def chat_prompt(case: EvalCase) -> list[dict[str, str]]:
    guidelines = guidelines_text(case)
    system = "\n\n".join(message_text(m) for m in case.input_messages if m.role == "system")
    if guidelines:
        system = f"{GUIDELINES_HEADER}\n\n{guidelines}" + (f"\n\n{system}" if system else "")
    chat = [{"role": "system", "content": system}] if system else []
    chat += [{"role": m.role, "content": message_text(m)}
             for m in case.input_messages if m.role != "system"]
    return chat


def agent_question(case: EvalCase) -> str:
    """For agent targets: a preread block naming every referenced file, then the task."""
    paths = [s.path for s in guideline_segments(case)] + attachment_paths(case)
    turns = [m for m in case.input_messages if m.role != "system"]
    body = message_text(turns[-1], files="paths") if len(turns) == 1 else transcript(turns, "paths")
    system = "\n\n".join(message_text(m, "paths") for m in case.input_messages if m.role == "system")
    if system:
        body = f"{system}\n\n{body}"
    if not paths:
        return body
    listing = "\n".join(f"* {p}" for p in paths)
    return f"Read these files first:\n{listing}\n\n[[ ## Task ## ]]\n{body}"


def reference_answer(case: EvalCase) -> str:
    msgs = case.expected_messages
    if not msgs:
        return ""
    if len(msgs) == 1:
        return message_text(msgs[0])
    return transcript(msgs, files="inline")


def build_request(case: EvalCase, *, is_agent: bool, trial: int = 0, attempt: int = 1) -> Request:
    guideline_paths = [s.path for s in guideline_segments(case) if s.path]
    system = "\n\n".join(message_text(m) for m in case.input_messages if m.role == "system")
    return Request(
        eval_id=case.id,
        question=agent_question(case) if is_agent else render_question(case),
        chat=chat_prompt(case), system_prompt=system or None,
        guidelines=guidelines_text(case), guideline_paths=guideline_paths,
        input_files=attachment_paths(case), attempt=attempt, trial=trial,
        metadata={"conversation_id": case.conversation_id, "file": case.file},
    )


def provider_request_record(request: Request, is_agent: bool) -> dict[str, Any]:
    """What the record keeps of the request (never keys): AgentV's shapes."""
    if is_agent:
        return {"question": request.question, "guideline_paths": request.guideline_paths}
    out: dict[str, Any] = {"question": request.question, "guidelines": request.guidelines}
    if len([m for m in request.chat if m["role"] != "system"]) > 1:
        out["chat_prompt"] = request.chat
    return out


def prompt_dump(request: Request) -> dict[str, Any]:
    return {"eval_id": request.eval_id, "question": request.question,
            "guidelines": request.guidelines, "guideline_paths": request.guideline_paths}


def user_segments(case: EvalCase) -> list[dict[str, Any]]:
    return [{"type": s.kind, "value": s.text if s.kind == "text" else s.path}
            for m in case.input_messages if m.role == "user" for s in m.segments
            if not s.is_guideline]

