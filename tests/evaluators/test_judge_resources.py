"""Judges close what they open: the typed categorical judge calls its provider on one
background loop (one HTTP session, reused), and a run's runtimes close their judges."""
from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agentv.providers.base import Target
from agentv.providers.llm.openai import OpenAIHTTPProvider
from agentv.providers.llm.retry import RetryingProvider, RetryPolicy
from agentv.tasks.engine.case_runner import TargetRuntime
from agentv.tasks.engine.runtime import close_runtimes
from tests import REPO
from tests.stub_llm import start_stub

GOOD = json.dumps({"rating": "good", "reason": "clear"})


@pytest.fixture
def stub():
    base_url, server = start_stub(reply=GOOD)
    yield base_url, server
    server.stop()


def targets_file(tmp_path: Path, base_url: str) -> str:
    path = tmp_path / "targets.yaml"
    path.write_text("$schema: agentv-targets-v2\ntargets:\n  - name: judge\n"
                    f"    provider: openai\n    base_url: {base_url}/v1\n    model: judge-m\n")
    return str(path)


def test_typed_judge_reuses_one_connection_and_closes_it(stub, tmp_path):
    from agentv import categorical_judge
    base_url, server = stub
    with categorical_judge(target="judge", targets=targets_file(tmp_path, base_url)) as judge:
        scores = [judge(f"answer {i}", "expected") for i in range(4)]

        async def from_a_running_loop():  # sync call inside async code: same loop, same session
            return judge("answer", "expected")
        scores.append(asyncio.run(from_a_running_loop()))
    assert [s.value for s in scores] == [0.75] * 5
    calls = server.completions()
    assert len(calls) == 5 and len({c.peer for c in calls}) == 1
    assert judge("again", "expected").value == 0.75  # usable after close (a new loop)
    judge.close()


@pytest.mark.slow
def test_typed_judge_leaves_no_unclosed_session_at_exit(stub, tmp_path):
    """A script that never closes its judge: nothing is reported unclosed at exit."""
    base_url, _ = stub
    script = textwrap.dedent(f"""
        import gc
        from agentv import categorical_judge
        judge = categorical_judge(target="judge", targets={targets_file(tmp_path, base_url)!r})
        for i in range(3):
            assert judge("answer", "expected").passed
        gc.collect()
        print("done")
    """)
    proc = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                          text=True, timeout=60, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin"})
    assert proc.returncode == 0 and proc.stdout.strip() == "done", proc.stderr
    assert "Unclosed" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_close_runtimes_closes_judges_once(stub):
    base_url, _ = stub
    target = Target(name="t", provider="openai", settings={"base_url": f"{base_url}/v1",
                                                         "model": "m"})
    judge = Target(name="judge", provider="openai", settings={"base_url": f"{base_url}/v1",
                                                             "model": "judge-m"})
    agent_p, judge_p = OpenAIHTTPProvider(target), OpenAIHTTPProvider(judge)
    no_retry = RetryPolicy(max_retries=0)
    shared_judge = RetryingProvider(judge_p, no_retry)
    runtimes = {"a": TargetRuntime("a", RetryingProvider(agent_p, no_retry), False, shared_judge),
                "b": TargetRuntime("b", RetryingProvider(agent_p, no_retry), False, shared_judge)}

    async def go():
        from agentv.providers.base import Request
        await runtimes["a"].provider.invoke(Request(eval_id="c", question="2 + 2"))
        await shared_judge.invoke(Request(eval_id="c", question="judge this", purpose="judge"))
        opened = [s for p in (agent_p, judge_p) for s in p._sessions.values()]
        await close_runtimes(runtimes)
        return opened
    opened = asyncio.run(go())
    assert len(opened) == 2 and all(s.closed for s in opened)
    assert not agent_p._sessions and not judge_p._sessions


def test_a_typed_judge_calls_its_provider_with_the_callers_secrets():
    """The portal's loop runs on its own thread; the call still scrubs with the registry of
    the code that called the judge (a run's, a client's)."""
    from agentv.evaluators.rating import CategoricalJudgeFn
    from agentv.providers import secrets
    from agentv.providers.base import Response

    class Reflecting:  # cuts what it reports as the wire clients cut an error body
        name, kind = "judge", "reflecting"

        async def invoke(self, request):
            reason = secrets.cut("the key sk-judge-caller-0123 was sent", 200)
            return Response(text=json.dumps({"rating": "good", "reason": reason}))
    with secrets.scope(secrets.SecretRegistry()) as registry, \
            CategoricalJudgeFn(Reflecting(), "criterion") as judge:
        registry.add(["sk-judge-caller-0123"])
        assert judge("output", "expected").reason == "good: the key *** was sent"
