"""The template matrix (issue 27, finding 1): template shapes × hostile payloads. Every shape
either is refused when the target is built (validate time: a ConfigError naming the safe
rewrite) or, built, runs every payload through the real programs (sh, bash, dash, python3,
perl, awk, node, find, flock, script, xargs…) without ever creating the marker file."""
from __future__ import annotations

import asyncio
import os
import shlex
import shutil
from pathlib import Path

import pytest

from agentv.providers.agents.cli import CliProvider, stdin_check
from agentv.providers.base import ProviderError, Request, Target
from agentv.providers.process.template import CommandTemplate

# {V}: the placeholder; {LOCK}: a lock file; {MARK}: the marker a payload tries to create
FINDING = [  # the shapes of issue 27's finding 1 (and the first 16 of its 26, from the tests)
    "python3 -W ignore -c 'print(\"{V}\")'",
    "python3 -X utf8 -c 'print(\"{V}\")'",
    "perl -I /tmp -e 'print \"{V}\"'",
    "awk 'BEGIN{print(\"{V}\")}'",
    "flock {LOCK} -c 'echo {V}'",
    "script -qc 'echo {V}' /dev/null",
    "find . -maxdepth 0 -exec sh -c 'echo {V}' \\;",
    "su -c 'echo {V}' root",
    "runuser -u root -- sh -c 'echo {V}'",
    "runuser root -c 'echo {V}'",
    "sshpass -p pw ssh host {V}",
    "printf %s {V}",
    "sh -c 'printf %s {V}'",
    "sh -c 'printf \"%s\" \"{V}\"'",
    "bash -c \"printf '%s' '{V}'\"",
    "bash -lc 'x=$(printf %s {V}); printf %s \"$x\"'",
    "dash -ec 'printf %s {V}'",
    "timeout 30 sh -c 'printf %s {V}'",
    "timeout -k 5 30 bash -c 'printf %s {V}'",
    "env X=1 bash -c 'printf %s {V}'",
    "nice -n 1 sh -c 'printf %s {V}'",
    "xargs -0 sh -c 'printf %s {V}'",
    "sh -c 'printf %s \"$1\"' sh {V}",
    "python3 -c 'import sys; sys.stdout.write(sys.argv[1])' {V}",
    "python3 -c 'print(\"{V}\")'",
    "node -e 'console.log(\"{V}\")'",
]
OWN = [
    "python3 -W ignore -c 'import sys; print(sys.argv[1])' {V}",
    "python3 -X utf8 -c 'import os; print(os.environ[\"AGENTV_PROMPT\"])'",
    "python3 -Sc 'print(\"{V}\")'",
    "python3 -c'print(\"{V}\")'",
    "python3 -m timeit {V}",
    "python3 {V}",
    "python3 -Q new -c 'import sys; print(sys.argv[1])' {V}",
    "perl -I /tmp -e 'print $ARGV[0]' -- {V}",
    "perl -e 'print $ARGV[0]' {V}",
    "perl -lne 'print' -- {V}",
    "perl -e 'print 1' -e 'print \"{V}\"'",
    "perl -Mstrict -e 'print \"{V}\"'",
    "awk 'BEGIN{print ARGV[1]}' {V}",
    "awk 'BEGIN{print ENVIRON[\"AGENTV_PROMPT\"]}'",
    "awk -v p={V} 'BEGIN{print p}'",
    "awk -F: '{print}' {V}",
    "sed -n p -- {V}",
    "sed 's/x/{V}/'",
    "node -e 'process.stdout.write(process.argv[1])' -- {V}",
    "node -e 'process.stdout.write(process.argv[1])' {V}",
    "node --eval='console.log(1)' -e 'console.log(\"{V}\")'",
    "flock {LOCK} sh -c 'printf %s {V}'",
    "flock -w 5 {LOCK} printf %s {V}",
    "script -qc 'printf %s \"$AGENTV_PROMPT\"' /dev/null",
    "find . -maxdepth 0 -exec printf %s {V} \\;",
    "find {V}",
    "env -S 'printf %s {V}'",
    "env X={V} sh -c 'printf %s \"$X\"'",
    "env {V}",
    "timeout {V} true",
    "setsid sh -c 'printf %s {V}'",
    "stdbuf -oL printf %s {V}",
    "watch -n 1 printf %s {V}",
    "sudo -s printf %s {V}",
    "sudo -u root printf %s {V}",
    "doas sh -c 'printf %s {V}'",
    "docker exec ctr sh -c 'agent {V}'",
    "kubectl exec pod -- printf %s {V}",
    "ssh -p 22 user@host 'agent --prompt' {V}",
    "printf %s --prompt={V}",
    "printf %s x{V}y",
    "sh -c '{V}'",
    "sh -c 'eval {V}'",
    "sh -c 'eval \"$(printf %s {V})\"'",
    "sh -c 'trap {V} EXIT'",
    "sh -c '. {V}'",
    "sh -c 'printf %s {V} | sh'",
    "sh -c 'printf %s {V} | python3'",
    "sh -c 'printf %s {V} | cat'",
    "sh -c 'cat <<EOF\n{V}\nEOF'",
    "bash -c 'echo $(( {V} ))'",
    "bash -c '[[ {V} -eq 1 ]]'",
    "bash -c 'declare {V}'",
    "bash -c 'export X={V}; printf %s \"$X\"'",
    "bash -c 'printf -v {V} %s x'",
    "bash -c 'echo ${X:-{V}}'",
    "sh -c 'python3 -c \"print({V})\"'",
    "sh -c 'bash -c \"echo {V}\"'",
    "sh -c 'printf %s \"q: {V}\"'",
    "sh -c 'if true; then printf %s {V}; fi'",
    "sh -c 'for x in {V}; do printf %s \"$x\"; done'",
    "sh -c 'x=$(printf %s {V}); $x'",
    "bash -c 'printf %s \"$1\"' bash {V}",
    "sh {V}",
    "make X={V}",
    "sh -c 'printf %s \"$AGENTV_PROMPT\" \"$AGENTV_EVAL_ID\"'",
    "sh -c 'eval \"$AGENTV_PROMPT\"'",
    "sh -c 'eval \"$1\"' sh {V}",
    "sh -c 'y=\"$AGENTV_PROMPT\"; $y'",
    "cat fixtures/{V}.expected.txt",  # AgentV 4.x's cp fixtures/{EVAL_ID}.expected.txt
    "sh -c 'echo \"q: {V}\"'",
]
SHAPES = FINDING + OWN
PAYLOADS = [
    "'; touch {MARK} #",
    "$(touch {MARK})",
    "`touch {MARK}`",
    "\"); __import__('os').system('touch {MARK}') #",
    "__import__('os').system('touch {MARK}')",
    "x\ntouch {MARK}",
    "%s",
    "{}",
    "\"; system(\"touch {MARK}\"); print \"",
    "touch {MARK}|",
    "-e system(\"touch {MARK}\")",
    "\"); system(\"touch {MARK}\"); print(\"",
    "'); require('child_process').execSync('touch {MARK}'); ('",
    "--expression=e touch {MARK}",
    "-exec touch {MARK} ;",
    "a[$(touch {MARK})]",
    "x && touch {MARK}",
    "${IFS}$(touch {MARK})",
    "#{`touch {MARK}`}",
    "touch {MARK}",
]


def _provider(template: str) -> CliProvider:
    return CliProvider(Target("agent", "cli", {"command_template": template,
                                              "timeout_seconds": 60}, where="targets.yaml:3"))


FULL_MATRIX = os.environ.get("AGENTV_FULL_MATRIX") == "1"


def rotated(payloads: list[str], shape_index: int, share: int = 4) -> list[str]:
    """The payloads one shape runs: all of them with ``AGENTV_FULL_MATRIX=1`` (the whole
    matrix, ~5 minutes); else one in ``share``, rotated along the shapes, so each payload
    still meets one shape in ``share`` and every shape runs payloads of each kind."""
    if FULL_MATRIX:
        return payloads
    return [p for i, p in enumerate(payloads) if (i + shape_index) % share == 0]


def _runnable(template: str) -> bool:
    """Only shapes whose programs are on this machine run (the rest are refused anyway)."""
    return all(shutil.which(w) for w in shlex.split(template)[:1])


def _run_all(provider: CliProvider, payloads: list[str], work: Path) -> int:
    async def one(payload: str) -> None:
        try:
            await provider.invoke(Request("case-1", payload, eval_file=str(work / "d.yaml")))
        except ProviderError:
            pass  # the program may fail on a strange argument; only the marker matters

    async def all_of_them() -> None:
        await asyncio.gather(*(one(p) for p in payloads))
    asyncio.run(all_of_them())
    return len(payloads)


@pytest.mark.slow
def test_every_shape_is_refused_or_never_runs_a_payload(tmp_path, monkeypatch):
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))  # login shells read no user profile
    monkeypatch.chdir(work)
    mark = tmp_path / "PWNED"
    payloads = [p.replace("{MARK}", str(mark)) for p in PAYLOADS]
    assert len(SHAPES) >= 40 and len(set(SHAPES)) == len(SHAPES)
    refused, ran, runs, missing = [], [], 0, []
    for number, shape in enumerate(SHAPES):
        template = (shape.replace("{V}", "{PROMPT}").replace("{LOCK}", str(tmp_path / "lock")))
        provider = _provider(template)  # the shape checker is a lint: it warns, runs anyway
        if provider.config.command.lints:
            assert "{PROMPT}" in " ".join(provider.config.command.lints)
            refused.append(shape)
        if not _runnable(template):
            missing.append(shape)
            continue
        provider.use_eval_dirs([str(work)])
        runs += _run_all(provider, rotated(payloads, number), work)
        ran.append(shape)
        assert not mark.exists(), f"{shape!r} ran a payload"
    # the mark lies outside every sandbox's scratch: a payload that runs cannot make it
    executions = int(mark.exists()) + len(list(tmp_path.rglob("PWNED*")))
    print(f"\nshapes × payloads: {len(SHAPES)} × {len(payloads)} = "
          f"{len(SHAPES) * len(payloads)} (linted at validate: {len(refused)} shapes; run "
          f"for real: {len(ran)} shapes, {runs} runs; programs missing: {len(missing)}) "
          f"executions: {executions}")
    assert executions == 0
    # a shape whose program this machine lacks (sudo, doas, sshpass) is skipped, not passed
    import shutil
    assert all(shutil.which(shape.split()[0]) is None for shape in missing), missing
    for shape in FINDING[:11]:  # the finding's shapes that ran code are linted
        assert shape in refused, shape
    assert len(ran) >= 25  # the safe forms keep working


def test_refusals_name_the_safe_rewrite():
    """Each refused shape of the finding says what to write instead."""
    rewrites = {
        "python3 -W ignore -c 'print(\"{PROMPT}\")'": "pass {PROMPT} as its own argument",
        "awk 'BEGIN{print(\"{PROMPT}\")}'": 'ENVIRON["AGENTV_PROMPT"]',
        "flock L -c 'echo {PROMPT}'": "\"$AGENTV_PROMPT\" in a sh -c script",
        "script -qc 'echo {PROMPT}' /dev/null": "{PROMPT} as its own argument",
        "sshpass -p pw ssh host {PROMPT}": "prompt_via: stdin",
        "perl -e 'print $ARGV[0]' {PROMPT}": "write -- before {PROMPT}",
        "printf %s x{PROMPT}y": "pass {PROMPT} as its own argument",
        "sh -c 'printf %s \"q: {PROMPT}\"'": "\"$AGENTV_PROMPT\" as a word of its own",
    }
    for template, rewrite in rewrites.items():
        lints = " ".join(CommandTemplate(template, "targets.yaml:3").lints)
        assert rewrite in lints, (template, lints)


@pytest.mark.slow
def test_stdin_goes_only_to_programs_that_read_it_as_data(tmp_path):
    for template in ("sh", "bash -s", "python3", "perl -", "timeout 30 node",
                     "sh -c 'cat | sh'", "xargs -I{} sh -c 'echo {}'",
                     "sh -c 'xargs -I % sh -c \"echo %\"'"):
        target = Target("agent", "cli", {"command_template": template, "prompt_via": "stdin"},
                        where="t.yaml:2")
        lints = stdin_check(CliProvider(target).config, target)
        assert lints and "prompt_via" in lints[0] and "code" in lints[0]
    mark = tmp_path / "PWNED"
    payloads = [p.replace("{MARK}", str(mark)) for p in PAYLOADS]
    for template in ("cat", "python3 -c 'import sys; print(sys.stdin.read())'",
                     "sh -c 'cat | tr a b'", "awk '{print}'", "xargs printf %s"):
        provider = CliProvider(Target("agent", "cli", {"command_template": template,
                                                       "prompt_via": "stdin"}, where="t.yaml:2"))
        _run_all(provider, payloads, tmp_path)  # run for real: stdin stays data
    assert not mark.exists()


def test_a_batch_on_stdin_to_a_shell_is_a_lint():
    target = Target("agent", "cli", {"command_template": "agent {PROMPT}",
                                     "batch_command_template": "bash"},
                    provider_batching=True, where="t.yaml:2")
    lints = stdin_check(CliProvider(target).config, target)
    assert lints and "provider_batching" in lints[0]


def test_agentv_own_values_may_stand_anywhere():
    """{OUTPUT_FILE} and {ATTEMPT} are agentv's (a temp path, a number), not case text."""
    t = CommandTemplate("python3 -c 'open(\"{OUTPUT_FILE}\", \"w\").write(\"{ATTEMPT}\")'",
                        "t.yaml:1")
    assert t.render({"OUTPUT_FILE": "/tmp/o", "ATTEMPT": "2"}, {})[2] == \
        "open(\"/tmp/o\", \"w\").write(\"2\")"


def test_scripts_that_reference_the_variables_render_unchanged():
    script = "printf '%s|%s' \"$AGENTV_PROMPT\" \"$AGENTV_EVAL_ID\"; x=$1; printf %s \"$x\""
    t = CommandTemplate(f"sh -c {shlex.quote(script)} sh {{EVAL_ID}}", "t.yaml:1")
    assert t.render({"EVAL_ID": "c"}, {}) == ["sh", "-c", script, "sh", "c"]
