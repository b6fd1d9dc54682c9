"""Claude Code, Copilot CLI and pi — the real programs at their pinned versions — driven
by their agent targets against loopback model APIs (Anthropic Messages for claude, OpenAI
chat completions for copilot and pi; ``tests/fakes/agent_api_stub.py``): the answer from
the case's attached file found in the workspace, a tool call in the trace, a failing tool,
a failed model call, a hostile prompt, and a key that reaches the program only through
its environment and is written nowhere (timeouts: test_agent_timeouts.py)."""
from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentv.providers import secrets
from agentv.providers.base import ProviderError, Request
from agentv.providers.trace import summarize
from tests.agent_programs import KEY, PROGRAMS, SHELL_TOOL, build, isolate
from tests.fakes import agent_api_stub

pytestmark = [pytest.mark.slow,  # the real programs (docs/development.md: the fast subset)
              pytest.mark.parametrize("program", PROGRAMS)]


@pytest.fixture
def stub(tmp_path_factory, monkeypatch, tmp_path):
    isolate(monkeypatch, tmp_path, tmp_path_factory)
    secrets.add([KEY])
    url, server = agent_api_stub.start()
    yield url, server
    server.stop()
    secrets.clear()


def case(tmp_path: Path, question: str, eval_id: str = "c1") -> Request:
    facts = tmp_path / "suite" / "data" / "facts.md"
    facts.parent.mkdir(parents=True, exist_ok=True)
    facts.write_text("ANSWER: 42\n")
    return Request(eval_id, question, input_files=[str(facts)],
                   eval_file=str(tmp_path / "suite" / "dataset.yaml"))


def run(provider, request: Request):
    return asyncio.run(provider.invoke(request))


def test_answer_from_the_attached_file_in_the_workspace(program, stub, tmp_path):
    p = build(program, stub[0], tmp_path)
    r = run(p, case(tmp_path, "What is the answer?"))
    assert r.text == "The answer is 42"
    prompts = [m for rec in stub[1].requests for m in str(rec.body).split("file://")[1:]]
    assert prompts and all("/workspace/data/facts.md" in m for m in prompts)
    assert summarize(r.trace)["llm_call_count"] == 1
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.cached_tokens) == (100, 10, 20)
    assert r.file_changes == "" and r.workspace_path is None  # nothing changed; removed


def test_tool_call_in_the_trace(program, stub, tmp_path):
    p = build(program, stub[0], tmp_path)
    r = run(p, case(tmp_path, "RUN: sleep 0.3; cat data/facts.md; echo done > out.txt"))
    assert r.text.startswith("command output: ANSWER: 42")
    calls = [e for e in r.trace if e.type == "tool_call"]
    assert [c.name for c in calls] == [SHELL_TOOL[program]] and calls[0].ok
    assert "cat data/facts.md" in calls[0].arguments["command"]
    assert "ANSWER: 42" in calls[0].result and calls[0].duration_ms > 0
    summary = summarize(r.trace)
    assert summary["tool_calls_by_name"] == {SHELL_TOOL[program]: 1}
    assert summary["llm_call_count"] == 2 and summary["error_count"] == 0
    assert "diff --git a/out.txt b/out.txt\nnew file mode" in r.file_changes


def test_failing_tool_is_a_failed_call(program, stub, tmp_path):
    r = run(build(program, stub[0], tmp_path), case(tmp_path, "RUN: sleep 0.2; exit 3"))
    call = next(e for e in r.trace if e.type == "tool_call")
    assert not call.ok and summarize(r.trace)["error_count"] == 1
    assert r.text.startswith("command output:")


def test_failed_model_call_is_the_cases_error(program, stub, tmp_path):
    with pytest.raises(ProviderError) as err:
        run(build(program, stub[0], tmp_path), case(tmp_path, "FAIL please"))
    assert agent_api_stub.FAILURE in str(err.value)
    kept = Path(err.value.details["workspace_path"])  # kept on failure, for a look
    assert (kept / "data" / "facts.md").is_file()


def test_hostile_prompt_is_text_never_a_flag_or_a_command(program, stub, tmp_path):
    marker = tmp_path / "pwned"
    question = f"--help $(touch {marker}) `touch {marker}`; touch {marker} @/etc/passwd"
    r = run(build(program, stub[0], tmp_path), Request("hostile", question))
    assert r.text == f"echo: {question}" and not marker.exists()


def test_key_only_in_the_childs_environment_and_written_nowhere(program, stub, tmp_path):
    p = build(program, stub[0], tmp_path)
    r = run(p, case(tmp_path, "RUN: env | grep SECRET || true"))
    assert KEY not in " ".join(p.argv(_FakeWorkspace(tmp_path)))
    sent = [rec.headers for rec in stub[1].requests]
    assert any(KEY in str(h) for h in sent)  # it did reach the model API
    logs = list((tmp_path / "logs").iterdir())
    assert logs and all(KEY not in f.read_text() for f in logs)
    assert r.text.startswith("command output:")


class _FakeWorkspace:
    def __init__(self, root: Path) -> None:
        self.path, self.side, self.files = root, root, {}
