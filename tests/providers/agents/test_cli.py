"""provider: cli — command templates, safe substitution, outputs, errors, healthchecks,
timeouts that leave no process behind. In-process (no Prefect); see test_agent_e2e.py for
the real CLI."""
from __future__ import annotations

import asyncio
import http.server
import logging
import os
import shlex
import sys
import threading
import time
from pathlib import Path

import pytest

from agentv.providers.agents.cli import CliProvider
from agentv.providers.base import ConfigError, ProviderError, ProviderTimeout, Request, Target
from tests import TESTS

FAKES = TESTS / "fakes"
AGENT = f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKES / 'agent.py'))}"
NASTY = ("x $(touch {m}1) `touch {m}2`; touch {m}3 && touch {m}4 | touch {m}5 "
         "'single' \"double\" \\back\nsecond line\t${{HOME}} > {m}6 * ?")


def provider(settings: dict, base_dir: str | Path = ".") -> CliProvider:
    p = CliProvider(Target("agent", "cli", settings, where="targets.yaml:3",
                           base_dir=str(base_dir)))
    p.check()
    return p


def ask(p: CliProvider, question: str = "hello", **kw):
    return asyncio.run(p.invoke(Request("case-1", question, **kw)))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_hostile_prompt_reaches_the_agent_verbatim_and_runs_nothing(tmp_path):
    marker = tmp_path / "pwned"
    prompt = NASTY.format(m=marker)
    for template in (f"{AGENT} --prompt {{PROMPT}}",
                     f"{AGENT} --prompt '{{PROMPT}}'",  # quotes in the template are harmless
                     f"{AGENT} --prompt={{PROMPT}}"):
        assert ask(provider({"command_template": template}), prompt).text == prompt
    # a shell script template gets its values quoted: still data, never code
    script = "sh -c 'printf %s {PROMPT}; printf \" [%s]\" {EVAL_ID}'"
    assert ask(provider({"command_template": script}), prompt).text == f"{prompt} [case-1]"
    assert not list(tmp_path.iterdir())


def test_placeholders_files_and_attachments_formats(tmp_path):
    guide, data = tmp_path / "style guide.md", tmp_path / "data.csv"
    guide.write_text("g")
    data.write_text("d")
    dump = (f"{shlex.quote(sys.executable)} -c 'import sys; open(sys.argv[1], \"w\")"
            ".write(chr(10).join(sys.argv[2:]))' {OUTPUT_FILE}")  # the sandbox's scratch
    p = provider({"command_template": f"{dump} {{EVAL_ID}} {{ATTEMPT}} {{FILES}} -- "
                                      "{ATTACHMENTS} {GUIDELINES}", "output_format": "text",
                  "files_format": "--file {path}", "attachments_format": "--attach={basename}"})
    answer = asyncio.run(p.invoke(Request("case-7", "q", guidelines="<file>rules</file>",
                                          attempt=2, guideline_paths=[str(guide)],
                                          input_files=[str(data)])))
    assert answer.text.split("\n") == [
        "case-7", "2", "--file", str(guide), "--file", str(data), "--",
        "--attach=data.csv", "<file>rules</file>"]


def test_output_file_is_the_answer_else_stdout(tmp_path):
    to_file = provider({"command_template": f"{AGENT} --prompt {{PROMPT}} "
                                            "--output {OUTPUT_FILE}"})
    assert ask(to_file, "via file").text == "via file"
    assert ask(provider({"command_template": f"{AGENT} --prompt {{PROMPT}}"}), "out").text == "out"
    with pytest.raises(ProviderError, match="did not write"):
        ask(provider({"command_template": "true {OUTPUT_FILE}"}))


def test_json_output_convention_gives_text_messages_trace_and_usage():
    r = ask(provider({"command_template": f"{AGENT} --mode json --prompt {{PROMPT}}"}), "find")
    assert r.text == "answer to: find"
    assert r.output_messages[0]["tool_calls"][0]["tool"] == "search"
    assert [e.name for e in r.trace] == ["search", "search", "read_file"]
    assert [e.ok for e in r.trace] == [True, True, False]
    assert r.trace[0].arguments == {"q": "x"} and r.trace[0].duration_ms == 12
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.cost_usd) == (100, 20, 0.002)


def test_explicit_trace_wins_and_plain_json_stays_text(tmp_path):
    out = tmp_path / "out.json"
    out.write_text('{"text": "done", "trace": [{"type": "tool_call", "tool": "bash", '
                   '"input": {"cmd": "ls"}, "output": "a"}, {"type": "llm_call", '
                   '"model": "m", "usage": {"input_tokens": 5, "output_tokens": 2}}]}')
    cat = provider({"command_template": f"cat {out}", "cwd": "."}, base_dir=tmp_path)
    r = ask(cat)
    assert r.text == "done" and [e.type for e in r.trace] == ["tool_call", "llm_call"]
    out.write_text('{"decision": "CLEAR"}')
    r = ask(cat)
    assert r.text == '{"decision": "CLEAR"}' and r.trace is None


def test_invalid_json_where_announced_is_text_with_a_warning(caplog):
    p = provider({"command_template": f"{AGENT} --mode badjson --prompt x",
                  "output_format": "json"})
    with caplog.at_level(logging.WARNING, logger="agentv.cli"):
        r = ask(p)
    assert r.text == '{"text": "cut off' and r.trace is None
    assert "not valid JSON" in caplog.text and "case-1" in caplog.text


def test_failure_records_exit_code_and_stderr():
    with pytest.raises(ProviderError) as err:
        ask(provider({"command_template": f"{AGENT} --mode fail --prompt x"}))
    assert not err.value.retryable
    assert "exited with code 3" in str(err.value) and "model unavailable" in str(err.value)
    assert err.value.details["exit_code"] == 3
    assert "model unavailable" in err.value.details["stderr"]
    with pytest.raises(ProviderError, match="cannot run"):
        ask(provider({"command_template": "/nonexistent/agent {PROMPT}"}))


def test_timeout_kills_the_process_group_including_children(tmp_path):
    p = provider({"command_template": f"{AGENT} --mode sleep --sleep 30 --pid-dir {tmp_path} "
                                      "--prompt {PROMPT}", "timeout_seconds": 0.5,
                  "sandbox": "off"})  # host pids (a sandbox has its own pid namespace)
    started = time.monotonic()
    with pytest.raises(ProviderTimeout) as err:
        ask(p)
    assert err.value.retryable and "timed out after 0.5s" in str(err.value)
    assert time.monotonic() - started < 5
    pids = [int(f.read_text()) for f in tmp_path.glob("*.pid")]
    assert len(pids) == 2  # the agent and the child it spawned
    deadline = time.monotonic() + 3
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in pids)


def test_cwd_relative_to_targets_file_and_env_from_variable_names(tmp_path, monkeypatch):
    (tmp_path / "work").mkdir()
    monkeypatch.setenv("AGENTV_TEST_SECRET_SOURCE", "s3cret")
    p = provider({"command_template": "sh -c 'pwd; printf %s \"$AGENT_TOKEN $MODE\"'",
                  "cwd": "work", "env": {"AGENT_TOKEN": "AGENTV_TEST_SECRET_SOURCE",
                                         "MODE": "fast-mode"}}, base_dir=tmp_path)
    assert ask(p).text.split("\n") == [str((tmp_path / "work").resolve()), "s3cret fast-mode"]
    with pytest.raises(ConfigError, match="AGENTV_TEST_UNSET_VAR is not set") as err:
        provider({"command_template": "true", "env": {"X": "AGENTV_TEST_UNSET_VAR"}})
    assert err.value.field == "env.X"
    with pytest.raises(ConfigError, match="directory does not exist") as err:
        provider({"command_template": "true", "cwd": "missing"}, base_dir=tmp_path)
    base = tmp_path.resolve()  # no eval file (the typed API): the targets file's folder
    assert err.value.message == (f"directory does not exist: {base / 'missing'} (cwd "
                                 f"'missing' is resolved against the targets file's folder "
                                 f"{base})")


@pytest.mark.parametrize("settings, field, message", [
    ({}, "command_template", "is required"),
    ({"command_template": "  "}, "command_template", "non-empty"),
    ({"command_template": "run {PROMPT} {QUESTION}"}, "command_template",
     "unknown placeholder {QUESTION}"),
    ({"command_template": "run 'unclosed"}, "command_template", "cannot be split"),
    ({"command_template": "run", "timeout_seconds": 0}, "timeout_seconds", "greater than 0"),
    ({"command_template": "run", "files_format": "--f {file}"}, "files_format",
     "unknown placeholder {file}"),
    ({"command_template": "run", "healthcheck": {"type": "tcp"}}, "healthcheck.type",
     "unknown healthcheck type 'tcp'"),
    ({"command_template": "run", "healthcheck": {"type": "command"}},
     "healthcheck.command_template", "is required"),
    ({"command_template": "run", "output_format": "xml"}, "output_format", "must be one of"),
])
def test_bad_settings_are_configuration_errors(settings, field, message):
    with pytest.raises(ConfigError) as err:
        CliProvider(Target("agent", "cli", settings, where="targets.yaml:3"))
    assert err.value.field == field and message in err.value.message
    assert err.value.where == "targets.yaml:3"


def test_command_healthcheck_runs_before_the_first_case(tmp_path):
    ok = {"type": "command", "command_template": f"{AGENT} --healthcheck"}
    provider({"command_template": "true", "healthcheck": ok})
    bad = {"type": "command", "command_template": f"{AGENT} --mode fail", "cwd": "."}
    with pytest.raises(ConfigError) as err:
        provider({"command_template": "true", "healthcheck": bad}, base_dir=tmp_path)
    assert "healthcheck of target 'agent' failed" in err.value.message
    assert "exited with code 3" in err.value.message and "model unavailable" in err.value.message
    slow = {"type": "command", "command_template": "sleep 5", "timeout_seconds": 0.3}
    with pytest.raises(ConfigError, match="timed out after 0.3s"):
        provider({"command_template": "true", "healthcheck": slow})


class _Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's naming
        self.send_response(200 if self.path == "/health" else 503)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_http_healthcheck():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        provider({"command_template": "true",
                  "healthcheck": {"type": "http", "url": f"{base}/health"}})
        with pytest.raises(ConfigError, match="returned HTTP 503"):
            provider({"command_template": "true",
                      "healthcheck": {"type": "http", "url": f"{base}/down"}})
    finally:
        server.shutdown()
    with pytest.raises(ConfigError, match="GET http://127.0.0.1:9/"):
        provider({"command_template": "true",
                  "healthcheck": {"type": "http", "url": "http://127.0.0.1:9/",
                                  "timeout_seconds": 1}})


def test_stdin_is_dev_null_unless_prompt_via_stdin(tmp_path):
    """``cat`` (like ``llm`` and many agent CLIs) reads stdin when it is not a terminal: it
    must see /dev/null, or the prompt written and closed with ``prompt_via: stdin``."""
    started = time.monotonic()
    assert ask(provider({"command_template": "cat", "timeout_seconds": 20})).text == ""
    assert time.monotonic() - started < 10
    p = provider({"command_template": "cat", "prompt_via": "stdin", "timeout_seconds": 20})
    assert ask(p, "the prompt\non stdin").text == "the prompt\non stdin"
    with pytest.raises(ConfigError) as err:
        provider({"command_template": "cat {PROMPT}", "prompt_via": "stdin"})
    assert err.value.field == "prompt_via"
    with pytest.raises(ConfigError, match="must be one of argv, stdin"):
        provider({"command_template": "cat", "prompt_via": "file"})


def test_commands_run_in_the_eval_files_directory_and_cwd_is_relative_to_it(tmp_path):
    """AgentV 1.5/2.6: no ``cwd`` → the eval file's directory; a relative ``cwd`` is resolved
    against it (``cwd: ..`` next to an ``evals/`` folder), also for the healthcheck."""
    evals = tmp_path / "suite" / "evals"
    evals.mkdir(parents=True)
    (tmp_path / "suite" / "tool.sh").write_text("pwd\n")
    where = str(evals / "dataset.yaml")
    p = CliProvider(Target("agent", "cli", {"command_template": "pwd"}, where="t.yaml:1",
                           base_dir=str(tmp_path)))
    p.use_eval_dirs([str(evals)])
    p.check()
    assert ask(p, eval_file=where).text == str(evals)
    health = {"type": "command", "command_template": "sh tool.sh", "cwd": ".."}
    p = CliProvider(Target("agent", "cli", {"command_template": "sh ./tool.sh", "cwd": "..",
                                            "healthcheck": health},
                           where="t.yaml:1", base_dir=str(tmp_path / "elsewhere")))
    p.use_eval_dirs([str(evals)])
    p.check()  # the healthcheck found ./tool.sh from the eval file's parent
    assert ask(p, eval_file=where).text == str(tmp_path / "suite")
    # the healthcheck runs where the cases run: without cwd, in the eval file's directory
    bad = CliProvider(Target("agent", "cli", {
        "command_template": "true", "healthcheck": {"type": "command",
                                                    "command_template": "sh tool.sh"}},
        where="t.yaml:1"))
    bad.use_eval_dirs([str(evals)])
    with pytest.raises(ConfigError, match="healthcheck of target 'agent' failed"):
        bad.check()
    missing = CliProvider(Target("agent", "cli", {"command_template": "true", "cwd": "nope"},
                                 where="t.yaml:1"))
    missing.use_eval_dirs([str(evals)])
    with pytest.raises(ConfigError, match=f"directory does not exist: {evals / 'nope'}") as e:
        missing.check()
    assert e.value.message.endswith(
        f"(cwd 'nope' is resolved against the eval file's folder {evals})")
    health["cwd"] = "gone"
    p = CliProvider(Target("agent", "cli", {"command_template": "true",
                                            "healthcheck": health}, where="t.yaml:1"))
    p.use_eval_dirs([str(evals)])
    with pytest.raises(ConfigError, match="healthcheck.cwd 'gone' is resolved against the "
                       "eval file's folder") as e:
        p.check()
    assert e.value.field == "healthcheck.cwd"


def test_placeholder_values_are_in_the_environment(tmp_path):
    p = provider({"command_template": "sh -c 'printf \"%s|%s|%s\" \"$AGENTV_PROMPT\" "
                                      "\"$AGENTV_EVAL_ID\" \"$AGENTV_FILES\"'"})
    assert ask(p, "q $(x)", input_files=["/a b", "/c"]).text == "q $(x)|case-1|/a b\n/c"


def test_a_suite_workspace_is_the_commands_fresh_cwd_and_its_changes_are_recorded(tmp_path):
    """As AgentV runs a cli target for a suite with ``workspace: template:``: each case in a
    fresh copy of the template; edits, creations and deletions become ``file_changes``."""
    from agentv.providers.agents.file_changes import changed_paths
    from agentv.providers.agents.workspace_spec import parse_workspace
    tpl = tmp_path / "tpl"
    tpl.mkdir()
    (tpl / "hello.txt").write_text("hello\n")
    (tpl / "obsolete.log").write_text("old\n")
    script = ("import os, pathlib; p = pathlib.Path('hello.txt'); "
              "p.write_text(p.read_text() + 'edited\\n'); pathlib.Path('new.txt').write_text('x'); "
              "os.remove('obsolete.log'); print(os.getcwd())")
    p = provider({"command_template": f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}"},
                 tmp_path)
    spec = parse_workspace({"template": "tpl"}, str(tmp_path), "e.yaml:3")
    answers = [ask(p, workspace=spec, eval_file=str(tmp_path / "e.yaml")) for _ in range(2)]
    for response in answers:
        assert Path(response.text.strip()).name == "workspace"
        assert Path(response.text.strip()).parent != tmp_path
        assert changed_paths(response.file_changes or "") == {
            "hello.txt": "edited", "new.txt": "created", "obsolete.log": "deleted"}
        assert response.workspace_path is None  # a passing case's workspace is removed
    assert answers[0].text != answers[1].text  # one fresh copy per case
    assert (tpl / "hello.txt").read_text() == "hello\n" and (tpl / "obsolete.log").exists()
    fixed = provider({"command_template": f"{shlex.quote(sys.executable)} -c "
                      f"{shlex.quote('import os; print(os.getcwd())')}", "cwd": "."}, tmp_path)
    response = ask(fixed, workspace=spec, eval_file=str(tmp_path / "e.yaml"))
    assert response.text.strip() == str(tmp_path) and response.file_changes is None
