"""Sink by sink: every secret-bearing field × a placement that carries it into the output.

One real ``agentv eval --verbose --cache --dump-prompts --dump-traces --junit`` run (real
Prefect server, real code-judge processes, real cli agent, a loopback server speaking the
OpenAI and Anthropic wires that echoes what it was sent) then ``agentv report``. Each
vector has its own canary; the test checks that the vector really happened (its mask or
its effect is there) and greps for every canary in every sink: the console (stdout and
stderr of both commands), results JSONL, Parquet, prompt and trace dumps, the response
cache, the HTML report, JUnit, the Prefect API (artifacts, logs, the flow run and its task
runs) and the Prefect database (every file under AGENTV_HOME).
"""
from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import sys
import time
import uuid
from pathlib import Path

import pytest
from aiohttp import web

from tests.flows.test_secrets import prefect_texts
from tests.loopback_app import serve_routes

#: vector (secret-bearing field × placement) -> its canary
VECTORS = {name: f"cnry{i:02d}{uuid.uuid4().hex}" for i, name in enumerate([
    "code_judge.env literal GRADER_API_KEY -> reasoning",
    "code_judge.env literal, plain name -> hits",
    "code_judge.env ${{ OS VAR }}, plain name -> misses",
    "code_judge.env literal -> details",
    "code_judge.env literal -> stderr of a failing judge (error)",
    "code_judge.env literal -> unparsable verdict (error)",
    "composite member code_judge.env literal -> reasoning",
    "code_judge.env literal -> failing verdict (JUnit failure)",
    "code_judge.env ${{ .env VAR }}, plain name -> hits",
    "code_judge.env URL value's password -> reasoning",
    "openai base_url ?token= -> answer",
    "openai base_url plain query value -> answer",
    "openai base_url ?token= -> llm_judge error",
    "openai api_key -> answer",
    "openai extra_headers value -> answer",
    "anthropic base_url user:password@ password -> answer",
    "anthropic base_url ?sig= -> answer",
    "anthropic api_key -> answer",
    "cli env token -> answer",
    "REDIS_URL password (OS env) -> answer",
    "SERVICE_URL password (OS env) -> answer",
    "SERVICE_URL ?access_token= (OS env) -> failing agent's stderr (error)",
    "PREFECT_API_URL password -> agentv's flow-run link",
    "PREFECT_API_URL password -> the recorder process's replies",
    "PREFECT_API_URL password -> answer",
    "composite member code_judge.env literal -> hits",
])}
# one PREFECT_API_URL, three placements (each checked in ``happened``)
VECTORS["PREFECT_API_URL password -> the recorder process's replies"] = \
    VECTORS["PREFECT_API_URL password -> answer"] = \
    VECTORS["PREFECT_API_URL password -> agentv's flow-run link"]
V = list(VECTORS.values())
#: partial echoes: 20 characters from the middle of a secret (issue #38: any run of >= 12)
PARTS = {".env value, 20 of its characters -> code_judge details": V[8][5:25],
         "cli env token, 20 of its characters -> answer": V[18][5:25]}

JUDGE = """import json, os, sys
from urllib.parse import urlsplit
sys.stdin.read()
mode, shown = sys.argv[1], {}
for arg in sys.argv[2:]:
    where, name = arg.split('=')
    value = os.environ.get(name.removeprefix('pw:'), 'MISSING-' + name)
    if name.startswith('part:'):
        value = os.environ.get(name.removeprefix('part:'), 'MISSING-' + name)[5:25]
    shown[where] = urlsplit(value).password if name.startswith('pw:') else value
if mode == 'fail':
    print('judge broke: ' + shown['err'], file=sys.stderr)
    sys.exit(1)
if mode == 'garbage':
    print('no verdict, only ' + shown['out'])
    sys.exit(0)
print(json.dumps({'score': 0 if mode == 'low' else 1, 'hits': ['hit ' + shown.get('hit', '')],
                  'misses': ['miss ' + shown.get('miss', '')],
                  'reasoning': 'saw ' + shown.get('reason', ''),
                  'details': {'deep': {'value': shown.get('detail', '')}}}))
"""
AGENT = """import os, sys
seen = ' '.join(os.environ.get(n, '') for n in
                ('AGENT_TOKEN', 'REDIS_URL', 'SERVICE_URL', 'PREFECT_API_URL'))
if 'fail' in sys.argv[1]:
    print('agent failed, service ' + os.environ.get('SERVICE_URL', ''), file=sys.stderr)
    sys.exit(1)
print('agent answer: ' + seen)
print('partial ' + os.environ.get('AGENT_TOKEN', '')[5:25])
"""


class EchoWire:
    """OpenAI chat completions and Anthropic messages on 127.0.0.1: the reply says what
    the request carried (its query, key headers, decoded Basic credentials)."""

    def __init__(self) -> None:
        self.url, self.seen = "", []

    def _said(self, request: web.Request) -> str:
        auth = request.headers.get("authorization", "")
        if auth.startswith("Basic "):
            auth = "basic " + base64.b64decode(auth[6:]).decode()
        said = (f"query {request.query_string} auth {auth} "
                f"x-api-key {request.headers.get('x-api-key', '')} "
                f"tenant {request.headers.get('x-tenant-token', '')}")
        self.seen.append((request.path, said))
        return said

    async def chat(self, request: web.Request) -> web.Response:
        await request.read()
        return web.json_response({
            "id": "c1", "object": "chat.completion", "model": "gpt-4o-mini",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": self._said(request)}}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}})

    async def messages(self, request: web.Request) -> web.Response:
        await request.read()
        return web.json_response({
            "id": "m1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
            "content": [{"type": "text", "text": self._said(request)}],
            "stop_reason": "end_turn", "usage": {"input_tokens": 3, "output_tokens": 5}})

    def start(self) -> "EchoWire":
        self.url = serve_routes([("POST", "/v1/chat/completions", self.chat),
                                 ("POST", "/v1/messages", self.messages)])
        return self


def judge(mode: str, root: Path, env: dict[str, str], **shown: str) -> str:
    argv = [sys.executable, str(root / "judge.py"), mode] + [f"{k}={v}" for k, v in shown.items()]
    return json.dumps({"type": "code_judge", "name": f"cj-{mode}-{len(env)}", "script": argv,
                       "env": env})


def write_project(root: Path, echo: str) -> None:
    (root / "judge.py").write_text(JUDGE)
    (root / "agent.py").write_text(AGENT)
    (root / ".env").write_text(f"DOTENV_PLAIN={V[8]}\n")
    (root / "targets.yaml").write_text(f"""$schema: agentv-targets-v2
targets:
  - name: default
    provider: openai
    model: gpt-4o-mini
    base_url: "{echo}/v1?token={V[10]}&tenant={V[11]}"
    api_key: {V[13]}
    extra_headers: {{X-Tenant-Token: {V[14]}}}
    max_retries: 0
  - name: basic
    provider: anthropic
    model: claude-haiku-4-5
    base_url: "http://proxy-user:{V[15]}@{echo.removeprefix('http://')}?sig={V[16]}"
    api_key: {V[17]}
    max_retries: 0
  - name: agent
    provider: cli
    command_template: "{sys.executable} {root / 'agent.py'} {{EVAL_ID}}"
    env: {{AGENT_TOKEN: CLI_AGENT_TOKEN}}
""")
    ok = judge("ok", root, {"GRADER_API_KEY": V[0], "GRADER_MODE": V[1],
                            "JUDGE_REF": "${{ JUDGE_VAR }}", "DETAIL_VAL": V[3]},
               reason="GRADER_API_KEY", hit="GRADER_MODE", miss="JUDGE_REF", detail="DETAIL_VAL")
    failing = judge("fail", root, {"ERR_VAL": V[4]}, err="ERR_VAL")
    garbage = judge("garbage", root, {"OUT_VAL": V[5]}, out="OUT_VAL")
    member = judge("ok", root, {"MEMBER_KEY": V[6], "MEMBER_HIT": V[25]}, reason="MEMBER_KEY",
                   hit="MEMBER_HIT")
    low = judge("low", root, {"LOW_VAL": V[7], "FROM_DOTENV": "${{ DOTENV_PLAIN }}",
                              "DB_URL": f"postgres://db:{V[9]}@db.internal/x"},
                reason="LOW_VAL", hit="FROM_DOTENV", miss="pw:DB_URL", detail="part:FROM_DOTENV")
    composite = json.dumps({"type": "composite", "name": "combo", "evaluators": [
        json.loads(member), {"type": "contains", "value": "query"}]})
    (root / "e.yaml").write_text(f"""$schema: agentv-eval-v2
evalcases:
  - id: llm
    input: 'What is 1 + 1?'
    expected_outcome: adds
    evaluators: [{{type: llm_judge}}]
  - id: basic
    input: 'What is 2 + 2?'
    expected_outcome: adds
    execution: {{target: basic, evaluators: [{{type: contains, value: query}}]}}
  - id: agent-ok
    input: do it
    execution: {{target: agent, evaluators: [{ok}, {failing}, {garbage}, {composite}, {low}]}}
  - id: agent-fail
    input: do it
    execution: {{target: agent, evaluators: [{{type: contains, value: answer}}]}}
""")


def with_userinfo(url: str, password: str) -> str:
    scheme, rest = url.split("://", 1)
    return f"{scheme}://agentv:{password}@{rest}"


def leaks(data: str | bytes) -> list[str]:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return [name for name, canary in [*VECTORS.items(), *PARTS.items()] if canary in text]


@pytest.mark.slow
def test_every_secret_bearing_field_is_masked_in_every_sink(cli, tmp_path):
    assert len(VECTORS) >= 25 and len(set(V)) == len(V) - 2
    echo = EchoWire().start()
    write_project(tmp_path, echo.url)
    api = with_userinfo(os.environ["PREFECT_API_URL"], V[22])
    env = {"JUDGE_VAR": V[2], "CLI_AGENT_TOKEN": V[18],
           "REDIS_URL": f"redis://:{V[19]}@127.0.0.1:6399/0",
           "SERVICE_URL": f"https://svc:{V[20]}@svc.internal/api?access_token={V[21]}",
           "PREFECT_API_URL": api,
           # Prefect's console at INFO, as --verbose leaves it (an in-process typed-API test
           # of this worker may have set WARNING in this process's environment)
           **{f"PREFECT_LOGGING_HANDLERS_{h}_LEVEL": "INFO"
              for h in ("CONSOLE", "CONSOLE_FLOW_RUNS", "CONSOLE_TASK_RUNS")}}
    # Prefect's UI URL defaults to the API URL, credentials and all
    assert "PREFECT_UI_URL" not in os.environ
    out = tmp_path / "results" / "r.jsonl"
    proc = cli("eval", str(tmp_path / "e.yaml"), "--out", str(out), "--verbose", "--cache",
               "--dump-prompts", str(tmp_path / "prompts"), "--dump-traces",
               str(tmp_path / "traces"), "--include-trace", "--junit",
               str(tmp_path / "junit.xml"), cwd=tmp_path, env=env, timeout=600)
    report = cli("report", str(out), cwd=tmp_path, env=env, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]  # 1: a case failed its gate
    assert report.returncode == 0, report.stderr[-3000:]
    happened(out, echo, proc.stdout + proc.stderr)
    sinks = sink_files(tmp_path)
    found = {p: leaks(p.read_bytes()) for p in sinks}
    found["console"] = leaks(proc.stdout + proc.stderr + report.stdout + report.stderr)
    flow_run_id = re.search(r"flow-run/([0-9a-f-]{36})", proc.stdout).group(1)
    time.sleep(2)  # logs reach the API in batches
    texts = asyncio.run(prefect_texts(flow_run_id))
    assert len(texts) > 5
    found["prefect api"] = [name for t in texts for name in leaks(t)]
    home = Path(os.environ["AGENTV_HOME"])
    database = [p for p in home.rglob("*") if p.is_file()]
    assert any(p.suffix == ".db" for p in database)
    for path in database:
        found[path] = leaks(path.read_bytes())
    held = {where: names for where, names in found.items() if names}
    leaked = {name for names in held.values() for name in names}
    print(f"secret sinks: {len(VECTORS)} vectors tried / {len(VECTORS) - len(leaked)} held / "
          f"leaks: {len(leaked)} (sinks: {len(found)})")
    assert not held, held


def sink_files(root: Path) -> list[Path]:
    """Everything the run and the report wrote (not the inputs the canaries came from)."""
    inputs = {"targets.yaml", "e.yaml", ".env", "judge.py", "agent.py"}
    written = [p for p in root.rglob("*") if p.is_file() and p.name not in inputs]
    kinds = {p.suffix for p in written}
    assert {".jsonl", ".parquet", ".xml", ".html", ".json"} <= kinds, kinds
    assert any(".agentv/cache" in str(p) for p in written)
    assert any("prompts" in p.parts for p in written)
    return written


def happened(out: Path, echo: EchoWire, console: str) -> None:
    """Each vector really reached the point where it would have leaked."""
    records = {r["eval_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    by_name = {e["name"]: e for r in records.values() for e in r["evaluator_results"]}
    ok = next(e for n, e in by_name.items() if n.startswith("cj-ok-4"))
    assert ok["reasoning"] == "saw ***" and ok["hits"] == ["hit ***"]
    assert ok["misses"] == ["miss ***"] and ok["details"]["deep"]["value"] == "***"
    assert "***" in next(e["error"] for n, e in by_name.items() if n.startswith("cj-fail"))
    assert "***" in next(e["error"] for n, e in by_name.items() if n.startswith("cj-garbage"))
    member = by_name["combo"]["evaluator_results"][0]
    assert member["reasoning"] == "saw ***" and member["hits"] == ["hit ***"]
    low = next(e for n, e in by_name.items() if n.startswith("cj-low"))
    assert (low["score"], low["reasoning"], low["hits"], low["misses"]) == \
        (0, "saw ***", ["hit ***"], ["miss ***"])
    assert low["details"]["deep"]["value"] == "***"  # 20 characters of a .env secret
    assert by_name["llm_judge"].get("error")  # the echo is no verdict: its text is in the error
    paths = [p for p, _ in echo.seen]
    assert "/v1/chat/completions" in paths and "/v1/messages" in paths  # query after the path
    answer = records["llm"]["candidate_answer"]
    assert answer.count("***") >= 4 and "Bearer ***" in answer
    basic = records["basic"]["candidate_answer"]
    assert "auth basic ***" in basic and "sig=***" in basic and "x-api-key ***" in basic
    agent = records["agent-ok"]["candidate_answer"]
    assert "partial ***" in agent, agent  # 20 characters of its token
    # credentialed URLs the agent was not given (its environment is an allow-list) never reach
    # it; any that do are masked
    for scheme, host in (("redis", ""), ("https", "svc"), ("http", "127")):
        assert f"{scheme}://" not in agent or f"{scheme}://***@{host}" in agent, agent
    failed = records["agent-fail"]["error"]
    assert failed and ("access_token=" not in failed or "access_token=***" in failed)
    assert re.search(r"prefect flow run: http://127\.0\.0\.1:\d+/[\w/-]*flow-run/", console)


@pytest.mark.parametrize("api, ui_before, ui_after", [
    ("https://me:pw-123456@prefect.example/api", None, "https://prefect.example"),
    ("https://prefect.example/api?token=tok-123456", None, "https://prefect.example"),
    ("https://me:pw-123456@prefect.example/api", "https://me:pw-123456@prefect.example",
     "https://prefect.example"),
    ("https://me:pw-123456@prefect.example/api", "https://ui.example", "https://ui.example"),
    ("http://127.0.0.1:4200/api", None, None),  # no credentials: Prefect's default stays
])
def test_prefect_ui_url_never_has_credentials(monkeypatch, api, ui_before, ui_after):
    from agentv.flows.prefect.server import hide_credentials_in_ui_url
    monkeypatch.setenv("PREFECT_UI_URL", ui_before or "")  # undone after the test, even
    if ui_before is None:  # when the variable was not set before it
        monkeypatch.delenv("PREFECT_UI_URL")
    hide_credentials_in_ui_url(api)
    assert os.environ.get("PREFECT_UI_URL") == ui_after
