"""No secret in any byte agentv writes or prints, nor in Prefect.

``test_api_key_never_written_anywhere``: one key echoed back in error bodies.
``test_no_canary_in_any_byte_agentv_writes``: canaries in every secret vector: an openai
target's key from .env whose error bodies echo it at every offset around the 300-character
cut, and whose replies echo it (→ the --cache files); an anthropic judge's key named
as an env variable, echoed in a 401; a cli target's ``env`` token printed by the agent on
stderr and in its answer; an unselected target's key printed by a code judge; ``.env`` extras
a child must never see; a healthcheck URL ``?token=``. Sinks: results, Parquet, JUnit, HTML
report, dumps, traces, cache, console, AGENTV_HOME (the Prefect database) and the Prefect
API's artifacts, logs, flow-run parameters and state messages.
``test_configuration_errors_never_print_a_secret``: ``base_url: not a URL``, failing
healthcheck URLs with a token (interpolated or literal).
"""
from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import time
import uuid
from pathlib import Path

import pytest
from aiohttp import web

from tests.flows.prefect_reads import read_flow_run
from tests.loopback_app import serve_routes
from tests.stub_llm import start_stub

KEY = "sk-live-SECRET-0123456789abcdef"


async def _flow_run_texts(flow_run_id: str) -> list[str]:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        ArtifactFilter,
        ArtifactFilterFlowRunId,
        LogFilter,
        LogFilterFlowRunId,
    )
    async with get_client() as client:
        artifacts = await client.read_artifacts(
            artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[flow_run_id])))
        logs = await client.read_logs(
            log_filter=LogFilter(flow_run_id=LogFilterFlowRunId(any_=[flow_run_id])))
    return [str(a.data) for a in artifacts] + [l.message for l in logs]


@pytest.mark.slow
def test_api_key_never_written_anywhere(cli, tmp_path):
    # the first two requests are rejected with a 401 whose body echoes the key
    base_url, stub = start_stub(latency_ms=5, script=[401, 429, 500], retry_after=0.1)
    try:
        (tmp_path / ".env").write_text(f"AGENTV_SECRET_TEST_KEY={KEY}\n")
        (tmp_path / "targets.yaml").write_text(
            "$schema: agentv-targets-v2\ntargets:\n  - name: default\n    provider: openai\n"
            f"    model: gpt-4o-mini\n    base_url: {base_url}\n"
            "    api_key: ${{ AGENTV_SECRET_TEST_KEY }}\n    retry_initial_delay_ms: 10\n")
        (tmp_path / "e.yaml").write_text(
            "$schema: agentv-eval-v2\nevalcases:\n" + "".join(
                f"  - id: c{i}\n    input: 'What is {i} + 1?'\n    expected_outcome: adds\n"
                for i in range(4)))
        out = tmp_path / "results" / "r.jsonl"
        proc = cli("eval", str(tmp_path / "e.yaml"), "--out", str(out), "--verbose",
                   "--workers", "2", "--dump-prompts", str(tmp_path / "prompts"),
                   "--dump-traces", str(tmp_path / "traces"), "--include-trace",
                   "--junit", str(tmp_path / "junit.xml"), cwd=tmp_path)
        assert proc.returncode == 1, proc.stderr  # cases errored: the run fails
        assert any(r.headers.get("authorization") == f"Bearer {KEY}" for r in stub.requests)
        assert any(r.status == 401 for r in stub.requests)  # the echoing error happened
    finally:
        stub.stop()
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != ".env"]
    assert {p.suffix for p in written} >= {".jsonl", ".parquet", ".xml", ".json"}
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in proc.stdout + proc.stderr
    flow_run_id = re.search(r"flow-run/([0-9a-f-]{36})", proc.stdout).group(1)
    time.sleep(2)  # logs reach the API in batches
    texts = asyncio.run(_flow_run_texts(flow_run_id))
    assert texts and not any(KEY in t for t in texts)


CANARY = {name: f"cnry-{name.lower()}-{uuid.uuid4().hex}" for name in (
    "OPENAI", "ANTH", "CLI_AGENT", "SPARE", "GITHUB", "EXTRA", "HEALTH", "BADURL", "LITERAL")}
PREFIX = '{"error": {"message": "'


class EchoServer:
    """OpenAI chat-completions wire: the first ``errors`` requests get a 500 whose body holds
    the presented key at a different offset each time, straddling the 300-character cut; later
    requests answer with a reply echoing the key. ``/health`` answers ``health_status``."""

    def __init__(self, errors: int, health_status: int = 200):
        self.errors = errors
        self.health_status = health_status
        self.count = 0
        self.url = ""

    async def chat(self, request: web.Request) -> web.Response:
        key = request.headers.get("authorization", "").removeprefix("Bearer ")
        await request.read()
        self.count += 1
        if self.count <= self.errors:
            start = 300 - len(key) + (self.count * (len(key) + 4)) // self.errors - 2
            body = PREFIX + "x" * max(0, start - len(PREFIX)) + key + ' is invalid"}}'
            return web.Response(status=500, text=body, content_type="application/json",
                                headers={"Retry-After": "0"})
        return web.json_response({
            "id": "cmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": f"I was called with {key}"}}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}})

    async def health(self, request: web.Request) -> web.Response:
        return web.Response(status=self.health_status, text=f"token {request.query.get('token')}")

    def start(self) -> "EchoServer":
        self.url = serve_routes([("POST", "/v1/chat/completions", self.chat),
                                 ("GET", "/health", self.health)])
        return self


def write_project(root: Path, echo: str, anthropic: str) -> None:
    (root / ".env").write_text(
        f"OAI_KEY={CANARY['OPENAI']}\nANTH_KEY={CANARY['ANTH']}\nGITHUB_TOKEN={CANARY['GITHUB']}\n"
        f"EXTRA_SETTING={CANARY['EXTRA']}\nHEALTH_TOKEN={CANARY['HEALTH']}\n")
    (root / "agent.py").write_text(
        "import os, sys\ntoken = os.environ.get('AGENT_TOKEN', 'none')\n"
        "if 'fail' in sys.argv[1]:\n"
        "    print('agent failed with token ' + token, file=sys.stderr)\n"
        "    sys.exit(1)\nprint('agent answer, token ' + token)\n")
    (root / "judge.py").write_text(
        "import json, os, sys\nsys.stdin.read()\n"
        "leaked = [n for n in ('GITHUB_TOKEN', 'EXTRA_SETTING', 'OAI_KEY', 'ANTH_KEY') "
        "if n in os.environ]\n"
        "print(json.dumps({'score': 1, 'hits': ['spare ' + os.environ.get('SPARE_VAR', '')],\n"
        "                  'reasoning': 'saw ' + os.environ.get('SPARE_VAR', ''),\n"
        "                  'dotenv_seen': leaked}))\n")
    (root / "targets.yaml").write_text(f"""$schema: agentv-targets-v2
targets:
  - name: default
    provider: openai
    model: gpt-4o-mini
    base_url: {echo}/v1
    api_key: ${{{{ OAI_KEY }}}}
    retry_initial_delay_ms: 1
    max_retries: 3
    judge_target: claude
  - name: claude
    provider: anthropic
    base_url: {anthropic}
    max_retries: 0
    settings:
      api_key: ANTH_KEY
      model: claude-3-5-haiku-latest
  - name: agent
    provider: cli
    command_template: "{sys.executable} {root / 'agent.py'} {{EVAL_ID}}"
    env: {{AGENT_TOKEN: CLI_AGENT_TOKEN}}
    healthcheck: {{type: http, url: "{echo}/health?token=${{{{ HEALTH_TOKEN }}}}"}}
  - name: unused
    provider: openai
    model: gpt-4o
    api_key: ${{{{ SPARE_VAR }}}}
""")
    judge = f"{{type: code_judge, script: [{sys.executable}, {root / 'judge.py'}]}}"
    cases = "".join(f"  - id: c{i}\n    input: 'What is {i} + 1?'\n    expected_outcome: adds\n"
                    f"    evaluators:\n      - {judge}\n      - {{type: llm_judge}}\n"
                    for i in range(4))
    cases += "".join(f"  - id: agent-{kind}\n    input: do it\n    execution:\n"
                     f"      target: agent\n      evaluators:\n        - {judge}\n"
                     for kind in ("ok", "fail"))
    (root / "e.yaml").write_text("$schema: agentv-eval-v2\nevalcases:\n" + cases)


async def prefect_texts(flow_run_id: str) -> list[str]:
    """Every text Prefect keeps of a flow run: artifacts, logs, the run, its task runs."""
    flow_run, task_runs, artifacts, logs = await asyncio.to_thread(read_flow_run, flow_run_id)
    return ([json.dumps(a.model_dump(mode="json")) for a in artifacts]
            + [log.message for log in logs] + [flow_run.model_dump_json()]
            + [t.model_dump_json() for t in task_runs])


def leaks(data: str | bytes) -> list[str]:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return [name for name, value in CANARY.items() if value in text]


@pytest.mark.slow
def test_no_canary_in_any_byte_agentv_writes(cli, tmp_path):
    echo = EchoServer(errors=12).start()
    anthropic_url, stub = start_stub(script=[401])
    env = {"CLI_AGENT_TOKEN": CANARY["CLI_AGENT"], "SPARE_VAR": CANARY["SPARE"]}
    try:
        write_project(tmp_path, echo.url, anthropic_url)
        out = tmp_path / "results" / "r.jsonl"
        proc = cli("eval", str(tmp_path / "e.yaml"), "--out", str(out), "--verbose",
                   "--cache", "--dump-prompts", str(tmp_path / "prompts"),
                   "--dump-traces", str(tmp_path / "traces"), "--include-trace",
                   "--junit", str(tmp_path / "junit.xml"), cwd=tmp_path, env=env)
        report = cli("report", str(out), cwd=tmp_path, env=env)
    finally:
        stub.stop()
    assert proc.returncode == 1, proc.stderr[-3000:]  # cases errored
    assert report.returncode == 0, report.stderr
    records = {r["eval_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    # every vector really happened, and really was scrubbed
    assert echo.count > 12 and any(r.status == 401 for r in stub.requests)
    assert records["agent-fail"]["error"] and "***" in records["agent-fail"]["error"]
    assert "***" in records["agent-ok"]["candidate_answer"]
    code = next(e for e in records["c3"]["evaluator_results"] if e["type"] == "code_judge")
    # a judge's environment is an allow-list: the unselected target's key never reaches it
    assert code["reasoning"] == "saw "
    assert code["details"]["dotenv_seen"] == []  # .env extras never reach a code judge
    assert "***" in records["c3"]["candidate_answer"]
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != ".env"
               and p.suffix != ".py" and p.name != "targets.yaml"]
    kinds = {p.suffix for p in written}
    assert {".jsonl", ".parquet", ".xml", ".html", ".json"} <= kinds
    assert any(".agentv/cache" in str(p) for p in written)
    for path in written:
        assert not leaks(path.read_bytes()), path
    assert not leaks(proc.stdout + proc.stderr + report.stdout + report.stderr)
    flow_run_id = re.search(r"flow-run/([0-9a-f-]{36})", proc.stdout).group(1)
    time.sleep(2)  # logs reach the API in batches
    texts = asyncio.run(prefect_texts(flow_run_id))
    assert len(texts) > 5 and not [leaks(t) for t in texts if leaks(t)]
    home = Path(os.environ["AGENTV_HOME"])
    for path in home.rglob("*"):
        if path.is_file():
            assert not leaks(path.read_bytes()), path


@pytest.mark.slow
def test_no_canary_in_an_agentv4_run_folder_or_otel_file(cli, tmp_path):
    """AgentV 4.x rows hold no answer, but the Parquet file, the run folder (answer, trace,
    transcript, task bundle) and the OTLP file do: a target's key the agent prints is masked
    in every one of them."""
    (tmp_path / "s.eval.yaml").write_text(
        "name: s\nexecution: {target: agent}\ntests:\n  - id: t1\n    input: Say it.\n"
        "    assertions: [{type: contains, value: token}]\n")
    (tmp_path / "targets.yaml").write_text(
        "targets:\n  - name: agent\n    provider: cli\n"
        "    command: sh -c 'echo \"the token is $AGENT_TOKEN\" > {OUTPUT_FILE}'\n"
        "    env:\n      AGENT_TOKEN: ${{ AGENT_TOKEN }}\n")
    proc = cli("eval", "run", "s.eval.yaml", "--targets", "targets.yaml", "--output", "out",
               "--otel-file", "otel.json", cwd=tmp_path,
               env={"AGENT_TOKEN": CANARY["CLI_AGENT"]})
    assert proc.returncode == 0, proc.stderr[-2000:]
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "targets.yaml"]
    assert {"index.parquet", "trace.json", "transcript.jsonl", "EVAL.yaml",
            "otel.json"} <= {p.name for p in written}
    assert "***" in (tmp_path / "out" / "s" / "t1" / "outputs" / "answer.md").read_text()
    for path in written:
        assert not leaks(path.read_bytes()), path
    assert not leaks(proc.stdout + proc.stderr)


@pytest.mark.slow
def test_configuration_errors_never_print_a_secret(tmp_path):
    from tests.conftest import run_cli
    echo = EchoServer(errors=0, health_status=503).start()
    (tmp_path / ".env").write_text(f"BASE={CANARY['BADURL']}\nHEALTH_TOKEN={CANARY['HEALTH']}\n")
    (tmp_path / "e.yaml").write_text(
        "$schema: agentv-eval-v2\nevalcases:\n  - id: a\n    input: hi\n")
    targets = {
        "url": "  - name: default\n    provider: openai\n    model: m\n"
               "    base_url: ${{ BASE }}\n    api_key: k-12345678\n",
        "health": "  - name: default\n    provider: cli\n    command_template: echo hi\n"
                  f"    healthcheck: {{type: http, url: '{echo.url}/health?token="
                  "${{ HEALTH_TOKEN }}'}\n",
        "literal": "  - name: default\n    provider: cli\n    command_template: echo hi\n"
                   f"    healthcheck: {{type: http, url: '{echo.url}/health?access_token="
                   f"{CANARY['LITERAL']}'}}\n",
    }
    for name, entry in targets.items():
        (tmp_path / "targets.yaml").write_text(
            "$schema: agentv-targets-v2\ntargets:\n" + entry)
        proc = run_cli("eval", str(tmp_path / "e.yaml"), cwd=tmp_path)
        assert proc.returncode == 2, (name, proc.stderr)
        line = proc.stderr.strip().splitlines()[-1]
        assert line.startswith("error: "), (name, line)
        # a URL setting's value is not echoed at all; the healthcheck's URL is, masked
        assert "***" in line if name != "url" else "base_url: not a URL" in line, (name, line)
        assert not leaks(proc.stdout + proc.stderr), (name, proc.stderr)


# ---------------------------------------------------------------- the registry, unit level
@pytest.fixture
def fresh_secrets():
    """A registry of the test's own (a run's), the registry of the test's context."""
    from agentv.providers import secrets
    with secrets.scope(secrets.SecretRegistry()) as registry:
        yield registry


def test_registry_masks_every_spelling_and_cuts_after_scrubbing(fresh_secrets):
    from agentv.providers import secrets
    from agentv.tasks.load.redact import redact, register, register_loose
    register(['k"ey/with+odd&chars-123'])
    register_loose(["8080", "true", "short", "gpt-4o-mini-long-enough"])
    assert redact(json.dumps({"a": 'k"ey/with+odd&chars-123'})) == '{"a": "***"}'
    assert redact("?token=k%22ey%2Fwith%2Bodd%26chars-123") == "?token=***"
    assert redact("port 8080 is true, short") == "port 8080 is true, short"
    assert redact("model gpt-4o-mini-long-enough") == "model ***"
    text = "x" * 290 + 'k"ey/with+odd&chars-123'
    assert secrets.cut(text, 300) == "x" * 290 + "***"
    assert secrets.tail('k"ey/with+odd&chars-123' + "y" * 5, 8) == "***yyyyy"


def test_every_target_of_the_file_is_scanned_used_or_not():
    from agentv.tasks.load.redact import targets_file_values
    env = {"A_KEY": "value-of-a-key", "PLAIN": "plain-value-123", "TOK": "tok-value-1234"}
    entries = [
        {"name": "unused", "provider": "openai", "api_key": "${{ A_KEY }}", "model": "m"},
        {"name": "agent", "provider": "cli", "env": {"AGENT_TOKEN": "TOK", "MODE": "PLAIN"},
         "healthcheck": {"type": "http", "url": "http://h/health?token=lit-1234&x=1"}},
        {"name": "u", "provider": "openai", "settings": {"secret": "literal-secret"}},
    ]
    marked, loose = targets_file_values(entries, env)
    assert set(marked) == {"value-of-a-key", "tok-value-1234", "lit-1234", "literal-secret"}
    assert loose == ["plain-value-123"]


def test_children_get_only_what_they_declare(monkeypatch, tmp_path,
                                                               fresh_secrets):
    from agentv.providers.process import environment
    from agentv.tasks.load.discover import load_env_files
    monkeypatch.setenv("OS_VAR", "os")
    (tmp_path / ".env").write_text("DOTENV_EXTRA=extra\nOS_VAR=dotenv-loses\nDECLARED=d\n")
    eval_file = tmp_path / "e.yaml"
    eval_file.write_text("")
    monkeypatch.chdir(tmp_path)
    for name in ("DOTENV_EXTRA", "DECLARED"):
        monkeypatch.delenv(name, raising=False)
    load_env_files([eval_file])
    try:
        env = environment.child_env(["DECLARED"], {"TOKEN": "${{ DOTENV_EXTRA }}", "N": 1})
        # an allow-list: what the target declares, never the rest of the parent environment
        assert "OS_VAR" not in env and env["DECLARED"] == "d"
        assert "DOTENV_EXTRA" not in env and env["TOKEN"] == "extra" and env["N"] == "1"
    finally:
        for name in ("DOTENV_EXTRA", "DECLARED"):
            monkeypatch.delenv(name, raising=False)
