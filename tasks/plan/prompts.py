"""AgentV's prompt builder, byte for byte: a case's messages → question, guidelines, chat.

``prompt_inputs(case, mode)`` mirrors AgentV's ``buildPromptInputs``:

* ``guidelines``: each guideline file (matched by ``guideline_patterns``) as
  ``<file path="basename">\\n…\\n</file>``, joined by a blank line.
* ``question``, single turn (one message with visible content, no assistant/tool turn):
  every non-guideline segment of every message, trimmed, joined by a blank line.
  Multi-turn: ``@[Role]:\\n…`` per message with content, guideline files as
  ``<Attached: path>`` markers.
* ``chat_prompt`` (multi-turn only): a system message (guidelines block, then leading system
  messages), then the turns; a later system or tool turn becomes an assistant turn opened by
  ``@[System]:`` / ``@[Tool]:``.

``mode`` is ``"lm"`` (file content inlined as ``<file path="…">`` blocks) or ``"agent"``
(a ``<file: path="…">`` reference only: agents and command targets read the file).
``llm_chat`` is what an LLM target is sent (AgentV's ai-sdk ``buildChatPrompt``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from agentv.tasks.load.messages import Message, Segment

Mode = Literal["lm", "agent"]
GUIDELINES_HEADER = "[[ ## Guidelines ## ]]"
DEFAULT_SYSTEM_PROMPT = ("You are a careful assistant. Follow all provided instructions and do "
                         "not fabricate results.")


@dataclass(frozen=True)
class PromptInputs:
    question: str
    guidelines: str
    chat_prompt: list[dict[str, str]] | None = None


def display_path(seg: Segment) -> str:
    """The path as written in the eval file, leading separators trimmed (AgentV)."""
    return (seg.display or seg.basename).lstrip("/\\")


def file_block(path: str, text: str) -> str:
    return f'<file path="{path}">\n{text}\n</file>'


def format_segment(seg: Segment, mode: Mode) -> str | None:
    if seg.kind == "text":
        return seg.text
    if seg.is_guideline:
        return f"<Attached: {display_path(seg)}>"
    if mode == "agent":
        return f'<file: path="{display_path(seg)}">'
    return file_block(display_path(seg), seg.text.strip()) if seg.text else None


def guidelines_text(messages: list[Message]) -> str:
    return "\n\n".join(file_block(s.basename, s.text.strip()) for s in guideline_segments(messages))


def guideline_segments(messages: list[Message]) -> list[Segment]:
    return [s for m in messages for s in m.segments if s.kind == "file" and s.is_guideline]


def _kept(msg: Message) -> list[Segment]:
    """A message's segments as AgentV keeps them for multi-turn rendering."""
    return [s for s in msg.segments if s.kind == "file" or s.text.strip()]


def _visible(segments: list[Segment]) -> bool:
    return any(s.text.strip() for s in segments if s.kind == "text" or not s.is_guideline)


def needs_role_markers(messages: list[Message]) -> bool:
    if any(m.role in ("assistant", "tool") for m in messages):
        return True
    return sum(1 for m in messages if _visible(_kept(m))) > 1


def _joined(segments: list[Segment], mode: Mode, skip_guidelines: bool = False) -> list[str]:
    parts = [format_segment(s, mode) for s in segments
             if not (skip_guidelines and s.kind == "file" and s.is_guideline)]
    return [p for p in parts if p]


def flat_question(messages: list[Message], mode: Mode) -> str:
    parts = [format_segment(s, mode) for m in messages for s in m.segments
             if not (s.kind == "file" and s.is_guideline)]
    return "\n\n".join(p.strip() for p in parts if p and p.strip())


def transcript_question(messages: list[Message], mode: Mode) -> str:
    out = []
    for msg in messages:
        segments = _kept(msg)
        parts = _joined(segments, mode) if _visible(segments) else []
        if parts:
            out.append(f"@[{msg.role.capitalize()}]:\n" + "\n".join(parts))
    return "\n\n".join(out)


def chat_prompt(messages: list[Message], guidelines: str, mode: Mode
                ) -> list[dict[str, str]] | None:
    if not messages:
        return None
    system = [f"{GUIDELINES_HEADER}\n\n{guidelines.strip()}"] if guidelines.strip() else []
    start = 0
    while start < len(messages) and messages[start].role == "system":
        parts = _joined(_kept(messages[start]), mode)
        if parts:
            system.append("\n".join(parts))
        start += 1
    chat = [{"role": "system", "content": "\n\n".join(system)}] if system else []
    for msg in messages[start:]:
        role, parts = msg.role, []
        if role in ("system", "tool"):
            parts.append(f"@[{role.capitalize()}]:")
            role = "assistant"
        parts += _joined(_kept(msg), mode, skip_guidelines=True)
        if parts:
            chat.append({"role": role, "content": "\n".join(parts)})
    return chat or None


def prompt_inputs(messages: list[Message], mode: Mode) -> PromptInputs:
    guidelines = guidelines_text(messages)
    if not needs_role_markers(messages):
        return PromptInputs(flat_question(messages, mode), guidelines)
    return PromptInputs(transcript_question(messages, mode), guidelines,
                        chat_prompt(messages, guidelines, mode))


def llm_chat(inputs: PromptInputs, system_prompt: str | None = None) -> list[dict[str, Any]]:
    """What an LLM target is sent: the chat prompt (with a default system message when it
    has none), else a system message (with the guidelines) and the question."""
    system = system_prompt.strip() if system_prompt and system_prompt.strip() \
        else DEFAULT_SYSTEM_PROMPT
    if inputs.chat_prompt:
        if any(m["role"] == "system" for m in inputs.chat_prompt):
            return [dict(m) for m in inputs.chat_prompt]
        return [{"role": "system", "content": system}, *map(dict, inputs.chat_prompt)]
    if inputs.guidelines.strip():
        system += f"\n\n{GUIDELINES_HEADER}\n\n{inputs.guidelines.strip()}"
    return [{"role": "system", "content": system},
            {"role": "user", "content": inputs.question.strip()}]
