"""The real ``llm`` CLI (PyPI ``llm`` 0.36, in its own venv: .ci/install.d/30-agent-clis.sh)
as a cli target ``llm -m stub-model {PROMPT}`` against a loopback OpenAI-compatible stub
registered through ``extra-openai-models.yaml`` under LLM_USER_PATH. ``llm`` reads stdin
whenever it is not a terminal: every case answering promptly proves the child's stdin is
/dev/null; ``prompt_via: stdin`` hands it the prompt there instead."""
from __future__ import annotations

import asyncio
import subprocess
import time

import pytest

from agentv.providers.agents.cli import CliProvider
from agentv.providers.base import Request, Target
from tests.conftest import real_tool
from tests.stub_llm import start_stub

pytestmark = pytest.mark.slow  # end-to-end (docs/development.md: the fast subset)


@pytest.fixture
def llm_home(tmp_path, monkeypatch):
    base_url, stub = start_stub()
    home = tmp_path / "llm-home"
    home.mkdir()
    (home / "extra-openai-models.yaml").write_text(
        f"- model_id: stub-model\n  model_name: stub-model\n  api_base: {base_url}/v1\n"
        "  api_key_name: stub\n  can_stream: false\n")
    (home / "keys.json").write_text('{"stub": "stub-key"}')
    monkeypatch.setenv("LLM_USER_PATH", str(home))
    # logging off, and the logs database migrated once (concurrent first runs race on it)
    for args in (["logs", "off"], ["-m", "stub-model", "-n", "warm up"]):
        subprocess.run([real_tool("llm"), *args], check=True, capture_output=True,
                       stdin=subprocess.DEVNULL)
    yield stub
    stub.stop()


def ask_all(provider: CliProvider, questions: list[str]) -> list[str]:
    async def go():
        return await asyncio.gather(*(provider.invoke(Request(f"c{i}", q))
                                      for i, q in enumerate(questions)))
    return [r.text for r in asyncio.run(go())]


def test_llm_answers_every_case_with_stdin_closed(llm_home):
    llm = real_tool("llm")
    p = CliProvider(Target("llm", "cli", {"env": {"LLM_USER_PATH": "LLM_USER_PATH"},
                                          "command_template": f"{llm} -m stub-model -n -- "
                                                              "{PROMPT}",
                                          "timeout_seconds": 60}, where="t.yaml:1"))
    p.check()
    questions = [f"What is {i} + {i + 1}?" for i in range(7)]
    started = time.monotonic()
    answers = ask_all(p, questions)
    assert answers == [f"The answer is {2 * i + 1}." for i in range(7)]
    assert time.monotonic() - started < 45  # none waited on stdin until the timeout
    sent = [r.body["messages"][-1]["content"] for r in llm_home.completions()][1:]
    assert sorted(sent) == sorted(questions)  # the prompt alone: no "<stdin>" text added
    assert all(r.headers.get("authorization") == "Bearer stub-key"
               for r in llm_home.completions())


def test_llm_reads_the_prompt_from_stdin_with_prompt_via_stdin(llm_home):
    llm = real_tool("llm")
    p = CliProvider(Target("llm", "cli", {"env": {"LLM_USER_PATH": "LLM_USER_PATH"},
                                          "command_template": f"{llm} -m stub-model -n",
                                          "prompt_via": "stdin", "timeout_seconds": 60},
                           where="t.yaml:1"))
    p.check()
    assert ask_all(p, ["What is 20 + 22?", "-starts with a dash"]) == [
        "The answer is 42.", "echo: -starts with a dash"]
