"""AgentV's prompt builder (tasks/plan/prompts.py): question, guidelines and chat for LLM targets
("lm": file content inlined) and for agents and command targets ("agent": references),
and what an LLM target is sent on the wire."""
from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

from agentv.providers.base import Target
from agentv.providers.llm.openai import OpenAIHTTPProvider
from agentv.tasks.load.files import load_suite
from agentv.tasks.plan.expand import build_request, provider_request_record
from agentv.tasks.plan.prompts import DEFAULT_SYSTEM_PROMPT, llm_chat, prompt_inputs
from tests.stub_llm import start_stub


def suite(tmp_path: Path, cases: str):
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / "rules.instructions.md").write_text("  Be kind.\n")
    (tmp_path / "data.txt").write_text("\nDATA\n\n")
    path = tmp_path / "s.yaml"
    path.write_text("$schema: agentv-eval-v2\nevalcases:\n" + textwrap.indent(
        textwrap.dedent(cases), "  "))
    return load_suite(path).cases[0]


SINGLE = """\
- id: one
  input_messages:
    - role: system
      content: [{type: file, value: rules.instructions.md}]
    - role: user
      content:
        - {type: text, value: "  Look at this.  "}
        - {type: file, value: /data.txt}
"""


def test_single_turn_question_guidelines_and_the_llm_chat(tmp_path):
    case = suite(tmp_path, SINGLE)
    lm = prompt_inputs(case.input_messages, "lm")
    assert lm.question == 'Look at this.\n\n<file path="data.txt">\nDATA\n</file>'
    assert lm.guidelines == '<file path="rules.instructions.md">\nBe kind.\n</file>'
    assert lm.chat_prompt is None  # the guideline-only system turn has no visible content
    assert llm_chat(lm) == [
        {"role": "system", "content": f"{DEFAULT_SYSTEM_PROMPT}\n\n[[ ## Guidelines ## ]]\n\n"
                                      '<file path="rules.instructions.md">\nBe kind.\n</file>'},
        {"role": "user", "content": lm.question}]
    agent = prompt_inputs(case.input_messages, "agent")
    assert agent.question == 'Look at this.\n\n<file: path="data.txt">'
    request = build_request(case, is_agent=True)
    assert request.question == agent.question and request.chat == []
    assert request.input_files == [str((tmp_path / "data.txt").resolve())]
    assert request.guideline_paths == [str((tmp_path / "rules.instructions.md").resolve())]
    assert provider_request_record(request, "cli") == (
        "lm_provider_request", {"question": agent.question, "guidelines": agent.guidelines})
    assert provider_request_record(request, "codex") == (
        "agent_provider_request", {"question": agent.question,
                                   "guideline_paths": request.guideline_paths})


MULTI = """\
- id: many
  input_messages:
    - {role: system, content: "You review code."}
    - role: user
      content:
        - {type: text, value: "Fix it"}
        - {type: file, value: rules.instructions.md}
        - {type: file, value: data.txt}
    - {role: assistant, content: "Which part?"}
    - {role: tool, content: "lint: 2 errors"}
    - {role: user, content: "   "}
    - {role: user, content: "All of it."}
"""


def test_multi_turn_transcript_and_chat_prompt(tmp_path):
    case = suite(tmp_path, MULTI)
    lm = prompt_inputs(case.input_messages, "lm")
    assert lm.question == (
        "@[System]:\nYou review code.\n\n"
        "@[User]:\nFix it\n<Attached: rules.instructions.md>\n"
        '<file path="data.txt">\nDATA\n</file>\n\n'
        "@[Assistant]:\nWhich part?\n\n@[Tool]:\nlint: 2 errors\n\n@[User]:\nAll of it.")
    assert lm.chat_prompt == [
        {"role": "system", "content": "[[ ## Guidelines ## ]]\n\n"
                                      '<file path="rules.instructions.md">\nBe kind.\n</file>'
                                      "\n\nYou review code."},
        {"role": "user", "content": 'Fix it\n<file path="data.txt">\nDATA\n</file>'},
        {"role": "assistant", "content": "Which part?"},
        {"role": "assistant", "content": "@[Tool]:\nlint: 2 errors"},
        {"role": "user", "content": "All of it."}]
    assert llm_chat(lm) == lm.chat_prompt  # it has a system message: sent as is
    agent = prompt_inputs(case.input_messages, "agent")
    assert agent.chat_prompt[1]["content"] == 'Fix it\n<file: path="data.txt">'
    request = build_request(case, is_agent=False)
    assert provider_request_record(request, "azure") == (
        "lm_provider_request", {"chat_prompt": lm.chat_prompt})
    assert provider_request_record(request, "azure", "boom")[1]["error"] == "boom"


def test_an_llm_target_sends_agentvs_chat_on_the_wire(tmp_path):
    case = suite(tmp_path, SINGLE)
    base_url, stub = start_stub()
    try:
        provider = OpenAIHTTPProvider(Target("t", "openai", {
            "base_url": f"{base_url}/v1", "api_key": "k", "model": "m"}))
        request = build_request(case, is_agent=False)
        asyncio.run(_invoke(provider, request))
        sent = stub.requests[-1].body["messages"]
    finally:
        stub.stop()
    assert sent == llm_chat(prompt_inputs(case.input_messages, "lm"))


async def _invoke(provider, request):
    try:
        return await provider.invoke(request)
    finally:
        await provider.aclose()
