"""Agent targets through the real ``agentv eval`` (subprocess, real Prefect server): hostile
prompts, timeouts that leave no process behind, traces in records and dumps, codex and
VS Code fakes, and AgentV's own local-cli and batch-cli suites with stand-in scripts."""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests import TESTS
from tests.conftest import SHARED

pytestmark = pytest.mark.slow  # end-to-end (docs/development.md: the fast subset)

FAKES = TESTS / "fakes"
PY = shlex.quote(sys.executable)
EXAMPLES = SHARED / "agentv-examples"
FAKE_PATH = {"PATH": f"{FAKES}{os.pathsep}{os.environ.get('PATH', '')}",
             "PYTHON": sys.executable}


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def by_id(path: Path) -> dict[str, dict]:
    return {r["eval_id"]: r for r in records(path)}


def write_targets(path: Path, targets: list[dict]) -> Path:
    path.write_text(yaml.safe_dump({"$schema": "agentv-targets-v2", "targets": targets},
                                   sort_keys=False))
    return path


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except (ProcessLookupError, OSError):
        return False


def test_command_template_agent_end_to_end(cli, tmp_path):
    pids, marker = tmp_path / "pids", tmp_path / "marker"
    pids.mkdir()
    hostile = (f"x $(touch {marker}) `touch {marker}`; touch {marker} && touch {marker} "
               f"'q' \"qq\"\nnext line")
    write_targets(tmp_path / "targets.yaml", [{
        "name": "agent", "provider": "cli", "timeout_seconds": 1, "retry_initial_delay_ms": 20,
        # unsandboxed: the agent leaves its pids where this test reads them (in the sandbox
        # they would land in its throwaway copy); containment: test_injection_matrix.py
        "sandbox": "off",
        "command_template": f"{PY} {FAKES / 'agent.py'} --case {{EVAL_ID}} --prompt {{PROMPT}} "
                            f"--pid-dir {pids} --sleep 30"}])
    (tmp_path / "judge.py").write_text(
        "import json,sys\np=json.load(sys.stdin)\nprint(json.dumps({'score': 1.0}))\n")
    suite = {"$schema": "agentv-eval-v2", "target": "agent",
             "execution": {"evaluators": [{"name": "ok", "type": "code_judge",
                                           "script": [sys.executable, "judge.py"]}]},
             "evalcases": [{"id": "echo-injection", "input": hostile},
                           {"id": "json-tools", "input": "use tools"},
                           {"id": "sleep-timeout", "input": "sleep"},
                           {"id": "fail-exit", "input": "crash"}]}
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(suite))
    out, traces = tmp_path / "r.jsonl", tmp_path / "traces"
    proc = cli("eval", str(tmp_path / "s.yaml"), "--out", str(out), "--workers", "4",
               "--include-trace", "--dump-traces", str(traces), "--no-fail-on-error",
               cwd=tmp_path)  # two cases error on purpose
    assert proc.returncode == 0, proc.stderr
    recs = by_id(out)
    assert recs["echo-injection"]["candidate_answer"] == hostile and not marker.exists()
    tools = recs["json-tools"]
    assert tools["trace_summary"]["tool_calls_by_name"] == {"read_file": 1, "search": 2}
    assert tools["trace_summary"]["error_count"] == 1
    assert tools["trace_summary"]["token_usage"] == {"input": 100, "output": 20, "total": 120}
    assert [e["name"] for e in tools["trace"]] == ["search", "search", "read_file"]
    assert tools["output_messages"][0]["tool_calls"][0]["tool"] == "search"
    plain = recs["echo-injection"]["trace_summary"]  # plain text: AgentV still summarizes
    assert plain["event_count"] == 0 and plain["duration_ms"] > 0  # the run's duration
    slow = recs["sleep-timeout"]
    assert "timed out after 1s" in slow["error"] and slow["attempt"] == 3  # retried twice
    failed = recs["fail-exit"]
    assert failed["attempt"] == 1 and "exited with code 3" in failed["error"]
    assert failed["error_details"]["exit_code"] == 3
    assert "model unavailable" in failed["error_details"]["stderr"]
    pid_list = [int(f.read_text()) for f in pids.glob("*.pid")]
    assert len(pid_list) == 6  # 3 attempts x (agent + its sleeping child)
    assert not [p for p in pid_list if alive(p)]
    slow_dumps = [json.loads(Path(p).read_text()) for p in slow["dump_files"]["traces"]]
    assert [d["attempt"] for d in slow_dumps] == [1, 2, 3]
    assert all(Path(p).parent == traces for p in slow["dump_files"]["traces"])
    assert slow_dumps[1]["trace"] is None
    (tools_path,) = tools["dump_files"]["traces"]
    assert Path(tools_path).name.startswith("json-tools__agent_attempt-1_")
    tools_dump = json.loads(Path(tools_path).read_text())
    assert tools_dump["target"] == "agent" and len(tools_dump["trace"]) == 3
    assert tools_dump["trace_summary"]["tool_calls_by_name"] == {"read_file": 1, "search": 2}


def test_codex_and_vscode_targets_end_to_end(cli, tmp_path):
    """The real Codex CLI (against a loopback Responses stub) and the real subagent (driving a
    fake ``code``) through ``agentv eval``; --dump-prompts shows what each agent received."""
    from tests.conftest import real_tool
    from tests.fakes import responses_stub
    url, stub = responses_stub.start()
    home, codex_home = tmp_path / "home", tmp_path / "codex-home"
    home.mkdir()
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        'model = "stub-model"\nmodel_provider = "stub"\n[model_providers.stub]\n'
        f'name = "stub"\nbase_url = "{url}"\nenv_key = "STUB_API_KEY"\n'
        'wire_api = "responses"\nrequest_max_retries = 0\nstream_max_retries = 0\n')
    env = {"HOME": str(home), "CODEX_HOME": str(codex_home), "STUB_API_KEY": "k"}
    subagent = real_tool("subagent")
    subprocess.run([subagent, "code", "provision", "--subagents", "1"], check=True,
                   capture_output=True, env={**os.environ, **env})
    (tmp_path / "guide.instructions.md").write_text("Answer briefly.\n")
    (tmp_path / "facts.md").write_text("ANSWER: 42\n")
    write_targets(tmp_path / "targets.yaml", [
        {"name": "codex_real", "provider": "codex", "executable": real_tool("codex"),
         "approval_preset": "read-only", "timeout_seconds": 60},
        {"name": "copilot", "provider": "vscode", "subagent": subagent,
         "vscode_cmd": str(FAKES / "code"), "timeout_seconds": 60}])
    case = {"id": "{}", "input": [{"role": "system", "content": [
                {"type": "file", "value": "guide.instructions.md"}]},
            {"role": "user", "content": [{"type": "text", "value": "What is the answer?"},
                                         {"type": "file", "value": "facts.md"}]}]}
    for target in ("codex_real", "copilot"):
        (tmp_path / f"{target}.yaml").write_text(yaml.safe_dump(
            {"$schema": "agentv-eval-v2", "target": target,
             "execution": {"evaluators": [{"name": "has-42", "type": "code_judge", "script": [
                 sys.executable, "-c", "import json,sys; p=json.load(sys.stdin); print(json."
                 "dumps({'score': float('42' in p['candidate_answer'])}))"]}]},
             "evalcases": [{**case, "id": f"{target}-case"}]}))
    out, dumps = tmp_path / "r.jsonl", tmp_path / "prompts"
    try:
        proc = cli("eval", str(tmp_path / "codex_real.yaml"), str(tmp_path / "copilot.yaml"),
                   "--out", str(out), "--workers", "4", "--dump-prompts", str(dumps),
                   cwd=tmp_path, env=env)
    finally:
        stub.stop()
    assert proc.returncode == 0, proc.stderr
    assert "target 'copilot' (vscode) runs at most 1 case(s) at a time" in proc.stderr
    recs = by_id(out)
    codex = recs["codex_real-case"]
    assert codex["candidate_answer"] == "The answer is 42" and codex["score"] == 1.0
    assert codex["trace_summary"]["llm_call_count"] == 1
    assert codex["agent_provider_request"]["guideline_paths"][0].endswith("guide.instructions.md")
    sent = [i for i in stub.requests[0]["input"] if i.get("role") == "user"][-1]["content"]
    dumped = json.loads(next(dumps.glob("codex_real-case__codex_real_*.json")).read_text())
    received = "".join(c.get("text", "") for c in sent)
    # the dump links the case's own files; codex got links to their copies in its workspace
    # (at the same path relative to the eval file's folder)
    workspace = re.search(r"file://(/[^)]*/workspace)/", received).group(1)
    assert dumped["agent_prompt"].replace(tmp_path.as_uri(), f"file://{workspace}") == received
    assert "— token `sha256:" in dumped["agent_prompt"]
    copilot = recs["copilot-case"]
    assert copilot["candidate_answer"] == "tokens ok (2 files); The answer is 42"
    assert copilot["score"] == 1.0 and copilot["error"] is None
    assert not (codex_home / "sessions").exists()  # --ephemeral: no rollouts


def _agentv_suites(root: Path) -> list[Path]:
    """Copy AgentV's local-cli and batch-cli suites (both releases) into ``root``."""
    v1, v2 = EXAMPLES / "v1.5.0/examples/features", EXAMPLES / "v2.6.1/examples/features"
    shutil.copytree(v1 / "evals/local-cli", root / "v1/evals/local-cli")
    shutil.copytree(v1 / "prompts", root / "v1/prompts")
    shutil.copytree(v1 / "evals/batch-cli", root / "v1/evals/batch-cli",
                    ignore=shutil.ignore_patterns(".agentv"))
    shutil.copytree(v2 / "local-cli/evals", root / "v2/local-cli/evals")
    shutil.copytree(v2 / "batch-cli/evals", root / "v2/batch-cli/evals")
    shutil.copytree(v2 / "batch-cli/judges", root / "v2/batch-cli/judges")  # code judge script
    return [root / "v1/evals/local-cli/cli-provider-demo.yaml",
            root / "v1/evals/batch-cli/batch-cli-demo.yaml",
            root / "v2/local-cli/evals/dataset.yaml", root / "v2/batch-cli/evals/dataset.yaml"]


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="shared/agentv-examples not present")
def test_agentv_local_cli_and_batch_cli_suites(cli, tmp_path):
    files = _agentv_suites(tmp_path)
    verdict = {"score": 0.9, "hits": ["mentions both attachments"], "misses": [],
               "reasoning": "stand-in judge"}
    targets = write_targets(tmp_path / "targets.yaml", [
        {"name": "judge", "provider": "mock", "judge_response": verdict},
        {"name": "local_cli", "provider": "cli", "judge_target": "judge",
         "command_template": f"{PY} {FAKES / 'mock_cli.py'} --prompt {{PROMPT}} {{FILES}} "
                             "--output {OUTPUT_FILE}",
         "files_format": "--file {path}", "timeout_seconds": 30,
         "healthcheck": {"type": "command",
                         "command_template": f"{PY} {FAKES / 'mock_cli.py'} --healthcheck"}},
        {"name": "batch_cli", "provider": "cli", "provider_batching": True, "verbose": True,
         "command_template": f"{PY} {FAKES / 'aml_batch.py'} --output {{OUTPUT_FILE}}",
         "timeout_seconds": 30,
         "healthcheck": {"type": "command",
                         "command_template": f"{PY} {FAKES / 'aml_batch.py'} --healthcheck"}}])
    out = tmp_path / "r.jsonl"
    # aml-004-not-exist is an execution error by design (the batch answers no such id):
    # AgentV (4.42.4 too) exits 0 when some cases errored, agentv exits 1 unless told
    proc = cli("eval", *map(str, files), "--targets", str(targets), "--out", str(out),
               "--verbose", "--no-fail-on-error", cwd=tmp_path, env=FAKE_PATH)
    assert proc.returncode == 0, proc.stderr
    assert "3 case(s) answered in one batch" in proc.stderr
    assert "4 case(s) answered in one batch" in proc.stderr
    recs = records(out)
    echoes = [r for r in recs if r["eval_id"] == "cli-provider-echo"]
    assert len(echoes) == 2  # v1.5.0 and v2.6.1
    for echo in echoes:
        assert echo["candidate_answer"] == ("Attachments detected (2): python.instructions.md, "
                                            "example.txt.")
        assert echo["score"] == 0.9 and echo["error"] is None
        request = echo["lm_provider_request"]  # AgentV: cli targets record the LM shape
        assert request["question"] in (  # the file as each release's eval file names it
            f"Please echo this request in one short sentence and mention all attached files by "
            f'name.\n\n<file: path="{path}">' for path in ("example.txt",
                                                           "./attachments/example.txt"))
        assert request["guidelines"].startswith('<file path="python.instructions.md">')
    aml = [r for r in recs if r["eval_id"].startswith("aml-00")]
    assert len(aml) == 7
    for r in aml:
        if r["eval_id"] == "aml-004-not-exist":
            assert "Batch output missing id 'aml-004-not-exist'" in r["error"]
            continue
        assert r["error"] is None and r["score"] == 1.0, r
        assert r["trace_summary"]["tool_calls_by_name"] == {"aml_screening": 1}
        assert {e["name"]: e["score"] for e in r["evaluator_results"]} == {
            "decision-check": 1.0, "tool-trajectory-check": 1.0}
