"""Injection matrix for ``provider: cli``: every template shape where a shell or interpreter
appears × prompts, eval ids and file names holding ``$(…)``, backticks, ``;``, ``&&``,
quotes, newlines and leading dashes. Each value must reach the command verbatim and no
marker file may ever appear; placeholders inside an interpreter's code are configuration
errors. Real processes (sh, bash, dash, timeout, env, nice, nohup, stdbuf, xargs, python3)."""
from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from agentv.providers.agents.cli import CliProvider
from agentv.providers.base import Request, Target

VALUES = [
    "$(touch pwned1)", "`touch pwned2`", "x; touch pwned3", "x && touch pwned4",
    "' ; touch pwned5 ; '", "\" ; touch pwned6 ; \"", "x\ntouch pwned7", "--help; touch pwned8",
    "-n $(touch pwned9)", "${IFS}$(touch pwned10)", "'\"$(touch pwned11)\"'\\", "-",
    "a|touch pwned12",
]
SHAPES = [
    "printf %s {V}",
    "sh -c 'printf %s {V}'",
    "sh -c 'printf \"%s\" \"{V}\"'",
    "bash -c \"printf '%s' '{V}'\"",
    "bash -lc 'x=$(printf %s {V}); printf %s \"$x\"'",
    "dash -ec 'printf %s {V}'",
    "timeout 30 sh -c 'printf %s {V}'",
    "timeout -k 5 30 bash -c 'printf %s {V}'",
    "env X=1 bash -c 'printf %s {V}'",
    "env -u HOME X=1 sh -c 'printf \"%s\" \"{V}\"'",
    "nice -n 1 sh -c 'printf %s {V}'",
    "nohup sh -c 'printf %s {V}'",
    "stdbuf -oL bash -c 'printf %s {V}'",
    "xargs -0 sh -c 'printf %s {V}'",
    "timeout 30 env X=1 nice -n 1 bash --login -c 'printf %s {V}'",
    "sh -c 'printf %s \"$1\"' sh {V}",
    "python3 -c 'import sys; sys.stdout.write(sys.argv[1])' {V}",
    "python3 -c 'import os, sys; sys.stdout.write(os.environ[sys.argv[1]])' AGENTV_{NAME}",
]
if shutil.which("zsh"):
    SHAPES.append("zsh -c 'printf %s {V}'")
UNSAFE = [
    "python3 -c 'print(\"{V}\")'",
    "python3 -Sc 'print(\"{V}\")'",
    "timeout 30 python3 -c \"print('{V}')\"",
    "env X=1 node -e 'console.log(\"{V}\")'",
    "perl -e 'print \"{V}\"'",
    "perl -ne 'print \"{V}\"'",
    "sh -c 'python3 -c \"print({V})\"'",
    "bash -c 'timeout 5 perl -e \"print {V}\"'",
    "sh -c 'eval {V}'",
    "sh -c \"bash -c 'echo {V}'\"",
    "sh -c 'echo ok; sh -c \"echo {V}\"'",
]


def run(template: str, placeholder: str, values: list[str], work: Path) -> list[str]:
    """Each value through one cli target built from ``template`` (concurrently)."""
    settings = {"command_template": template.replace("{V}", "{" + placeholder + "}")
                .replace("{NAME}", placeholder), "files_format": "{path}"}
    provider = CliProvider(Target("agent", "cli", settings, where="targets.yaml:1"))
    provider.use_eval_dirs([str(work)])
    provider.check()

    def request(value: str) -> Request:
        eval_id, files = "case-1", []
        if placeholder == "EVAL_ID":
            eval_id = value
        if placeholder == "FILES":
            path = work / value
            path.write_text("content")
            files = [str(path)]
        return Request(eval_id, value if placeholder == "PROMPT" else "hello",
                       input_files=files, eval_file=str(work / "dataset.yaml"))

    async def all_values() -> list[str]:
        answers = await asyncio.gather(*(provider.invoke(request(v)) for v in values))
        return [a.text for a in answers]
    return asyncio.run(all_values())


@pytest.fixture(autouse=True)
def plain_home(tmp_path, monkeypatch):
    """Login shells (``bash -lc``) read no user profile (this machine's runs pyenv rehash)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))


@pytest.mark.parametrize("template", SHAPES)
@pytest.mark.parametrize("placeholder", ["PROMPT", "EVAL_ID", "FILES"])
def test_values_reach_the_command_verbatim_and_run_nothing(tmp_path, template, placeholder):
    work = tmp_path / "work"
    work.mkdir()
    expected = [str(work / v) if placeholder == "FILES" else v for v in VALUES]
    assert run(template, placeholder, VALUES, work) == expected
    assert not list(tmp_path.rglob("pwned*")) and not list(Path("/tmp").glob("pwned*"))


@pytest.mark.parametrize("template", UNSAFE)
def test_placeholders_an_interpreter_would_run_as_code_are_lints(template):
    """A lint, not a refusal: the sandbox contains what runs; the warning names the rewrite."""
    provider = CliProvider(Target("agent", "cli", {"command_template": template.replace(
        "{V}", "{PROMPT}")}, where="targets.yaml:4"))
    message = " ".join(provider.config.command.lints)
    assert "AGENTV_PROMPT" in message  # names the safe alternative
    assert "code" in message or "eval" in message


@pytest.mark.slow
def test_safe_alternatives_named_by_the_error_work(tmp_path):
    """python -c with the value as an argument or from $AGENTV_PROMPT: verbatim, inert."""
    work = tmp_path / "w"
    work.mkdir()
    for template in ("python3 -c 'import sys; print(sys.argv[1], end=\"\")' {V}",
                     "python3 -c 'import os; print(os.environ[\"AGENTV_PROMPT\"], end=\"\")'",
                     "node -e 'process.stdout.write(process.env.AGENTV_PROMPT)'"):
        assert run(template, "PROMPT", VALUES, work) == VALUES
    assert not list(tmp_path.rglob("pwned*"))


REMOTE = [  # the remote side's shell parses these words again: configuration errors
    "ssh host {V}",
    "ssh -p 22 user@host {V}",
    "ssh -tt -o BatchMode=yes -i ~/.ssh/id host 'agent --prompt' {V}",
    "timeout 60 ssh host agent --prompt {V}",
    "ssh host \"agent --prompt '{V}'\"",
    "docker exec ctr sh -c 'agent --prompt {V}'",
    "docker exec -it -e A=1 -u root ctr bash -lc 'agent \"{V}\"'",
    "podman exec ctr sh -c 'agent {V}'",
    "kubectl exec pod -c main -- sh -c 'agent --prompt {V}'",
    "kubectl exec pod -- sh -c {V}",
    "sh -c 'ssh host agent {V}'",
    "sudo -u root sh -c 'printf %s {V}'",  # sudo resets the environment: no $AGENTV_*
    "bash -c 'ssh -p 22 host \"agent {V}\"'",
]


@pytest.mark.parametrize("template", REMOTE)
@pytest.mark.parametrize("placeholder", ["PROMPT", "EVAL_ID"])
def test_placeholders_a_remote_shell_would_parse_are_lints(template, placeholder):
    provider = CliProvider(Target("agent", "cli", {"command_template": template.replace(
        "{V}", "{" + placeholder + "}")}, where="targets.yaml:6"))
    message = " ".join(provider.config.command.lints)
    assert f"{{{placeholder}}}" in message
    assert ("prompt_via: stdin" in message) == (placeholder == "PROMPT")
    assert "remote" in message or "$AGENTV_" in message


FAKE_RUNNERS = {  # same argv semantics as the real programs, run locally
    "ssh": "#!/bin/sh\n# ssh [-T] host WORDS...: joins WORDS for the remote shell\n"
           "[ \"$1\" = -T ] && shift\nshift\nexec env -u AGENTV_PROMPT sh -c \"$*\"\n",
    "docker": "#!/bin/sh\n# docker exec [-i] CONTAINER COMMAND...: argv verbatim, no env\n"
              "shift\n[ \"$1\" = -i ] && shift\nshift\nexec env -u AGENTV_PROMPT \"$@\"\n",
}


@pytest.mark.slow
def test_the_safe_remote_forms_named_by_the_errors_work(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in FAKE_RUNNERS.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{__import__('os').environ['PATH']}")
    monkeypatch.chdir(tmp_path)
    values = [v for v in VALUES if v != "-"]
    for template in ("docker exec ctr sh -c 'printf %s \"$1\"' sh {V}",
                     "docker exec ctr printf %s {V}",
                     "kubectl exec pod -- printf %s {V}"):
        if template.startswith("kubectl"):
            (bin_dir / "kubectl").write_text("#!/bin/sh\nshift 3\nexec \"$@\"\n")
            (bin_dir / "kubectl").chmod(0o755)
        assert run(template, "PROMPT", values, tmp_path) == values
    stdin_target = CliProvider(Target("agent", "cli", {
        "command_template": "ssh -T host cat", "prompt_via": "stdin"}, where="t.yaml:1"))
    stdin_target.check()
    for value in values:
        assert asyncio.run(stdin_target.invoke(Request("c", value))).text == value.strip()
    assert not list(tmp_path.rglob("pwned*"))
