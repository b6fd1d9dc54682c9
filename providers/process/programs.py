"""What agentv knows about the programs a command template runs: wrappers it looks through,
interpreters (whose code arguments are never data), and programs that hand their arguments
to a shell, another user or another machine.

Anything else is a program agentv does not know to interpret its arguments: a whole argument
of it is data. Options of a wrapper or interpreter that are not listed here may take a value,
so agentv cannot tell where their options end (``providers.process.command_shape`` then treats
everything up to an interpreter's code flag as not data).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_NONE: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Wrapper:
    """``timeout 30 CMD…``: runs CMD with its argv verbatim. ``env_kept``: False when CMD does
    not get agentv's environment (sudo resets it; a container has its own). ``shell``: options
    after which the command line goes to a shell (``sudo -s``, ``flock -c``, ``env -S``)."""

    valued: frozenset[str] = _NONE
    flags: frozenset[str] = _NONE
    positional: int = 0
    assignments: bool = False
    env_kept: bool = True
    shell: frozenset[str] = _NONE


def _w(valued: str = "", flags: str = "", **kw) -> Wrapper:
    return Wrapper(frozenset(valued.split()), frozenset(flags.split()), **kw)


WRAPPERS: dict[str, Wrapper] = {
    "timeout": _w("-s --signal -k --kill-after", "--foreground --preserve-status -v --verbose",
                  positional=1),
    "env": _w("-u --unset -C --chdir", "-i --ignore-environment -0 --null - -v --debug",
              assignments=True, shell=frozenset({"-S", "--split-string"})),
    "nice": _w("-n --adjustment"),
    "nohup": _w(),
    "stdbuf": _w("-i -o -e --input --output --error"),
    "xargs": _w("-a -d -E -I -L -n -P -s --arg-file --delimiter --max-args --max-procs "
                "--max-chars --max-lines --replace --eof",
                "-0 --null -r --no-run-if-empty -t --verbose -x --exit -p --interactive "
                "--open-tty -o"),
    "setsid": _w("", "-c --ctty -f --fork -w --wait"),
    "exec": _w("-a", "-c -l"),
    "command": _w("", "-p"),
    "builtin": _w(),
    "time": _w("-f -o --format --output", "-p -a -v -q --append --verbose --portability"),
    "ionice": _w("-c -n --class --classdata", "-t --ignore"),
    "taskset": _w("", "-a --all-tasks -c --cpu-list", positional=1),
    "chrt": _w("-T -P -D --sched-runtime --sched-period --sched-deadline",
               "-a -b -d -f -i -o -r -R -v -m --all-tasks --batch --deadline --fifo --idle "
               "--other --rr --reset-on-fork --verbose", positional=1),
    "unbuffer": _w("", "-p"),
    "chroot": _w("--userspec --groups", "--skip-chdir", positional=1),
    "busybox": _w(),
    "flock": _w("-w -E --timeout --wait --conflict-exit-code",
                "-s -x -e -n -u -o -F --shared --exclusive --nonblock --nb --unlock --close "
                "--no-fork --verbose", positional=1, shell=frozenset({"-c", "--command"})),
    "sshpass": _w("-p -f -d -P", "-e -v"),
    "sudo": _w("-u -g -h -p -C -D -R -T -U --user --group --host --prompt --chdir --chroot "
               "--close-from --command-timeout --other-user",
               "-A -b -E -H -k -K -n -P -S -B -N --askpass --background --preserve-env "
               "--set-home --reset-timestamp --remove-timestamp --non-interactive "
               "--preserve-groups --stdin --bell --no-update",
               assignments=True, env_kept=False, shell=frozenset({"-s", "-i", "--shell",
                                                                  "--login"})),
    "doas": _w("-u -C", "-n", env_kept=False, shell=frozenset({"-s"})),
    "pkexec": _w("--user", "--keep-cwd --disable-internal-agent", env_kept=False),
    "runuser": _w("-u -g -G -w --user --group --supp-group --whitelist-environment",
                  "-m -p --preserve-environment", env_kept=False),
}
# these hand what follows to a shell, another user's login shell or another machine, where a
# placeholder is parsed again as code (or agentv's variables do not reach): never data
REMOTE = {
    "ssh": "ssh's remote command: ssh joins it into one line that the remote shell parses "
           "as code",
    "autossh": "autossh's remote command, which the remote shell parses as code",
    "rsh": "rsh's remote command, which the remote shell parses as code",
    "mosh": "mosh's remote command, which runs on another machine",
    "runuser": "runuser's command, which the user's shell parses as code (runuser USER -c)",
    "su": "su's command, which the user's shell parses as code (su -c)",
    "script": "script's command, which it runs through a shell (script -c)",
    "watch": "watch's command: watch joins its arguments into one line that sh -c parses",
    "find": "find's expression, which runs commands (-exec, -execdir, -ok) and deletes files",
    "parallel": "GNU parallel's command, which it runs through a shell",
    "at": "at's job, which a shell parses as code",
    "batch": "batch's job, which a shell parses as code",
    "systemd-run": "systemd-run's command, which runs without agentv's environment",
    "machinectl": "machinectl's command, which runs in another machine",
    "nsenter": "nsenter's command, whose options agentv does not check",
    "unshare": "unshare's command, whose options agentv does not check",
    "setpriv": "setpriv's command, whose options agentv does not check",
    "make": "make's arguments: targets and VAR=value assignments make expands as code",
}
SSH_VALUED = frozenset("BbcDEeFIiJLlmOopQRSWw")
CONTAINER_EXEC: dict[str, frozenset[str]] = {
    **dict.fromkeys(("docker", "podman", "nerdctl"), frozenset(
        {"-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "--detach-keys"})),
    "kubectl": frozenset({"-c", "--container", "-n", "--namespace", "--context", "-f",
                          "--filename", "--kubeconfig", "--pod-running-timeout"}),
}


@dataclass(frozen=True)
class Interpreter:
    """How an interpreter reads its code. Short options are single letters; ``attached``
    letters take a value only when it is attached (``-i.bak``); ``script`` (shells: ``-c``)
    makes the first operand the script; ``stdin``: ``-s`` reads the script from stdin;
    ``first_is_code``: awk/sed read the program from the first operand unless a program file
    (``program_file``) or code option was given; ``module``: ``python -m MODULE``;
    ``argv_code``: flags after which the operands are opened as code (perl -n: ``cmd|``)."""

    hint: str
    code: str = ""
    long_code: frozenset[str] = _NONE
    valued: str = ""
    long_valued: frozenset[str] = _NONE
    flags: str = ""
    long_flags: frozenset[str] = _NONE
    attached: str = ""
    script: str = ""
    stdin: str = ""
    first_is_code: bool = False
    program_file: str = ""
    module: str = ""
    argv_code: str = ""
    argv_after_code: bool = False  # python, awk: every word after the code is an argument


SHELL = Interpreter('"$AGENTV_PROMPT" in the script', valued="oO", flags=(
    "abefhkmnprtuvxBCEHPTil"), long_valued=frozenset({"--rcfile", "--init-file"}),
    long_flags=frozenset({"--login", "--norc", "--noprofile", "--posix", "--restricted",
                          "--verbose", "--noediting", "--debugger", "--help", "--version"}),
    script="c", stdin="s")
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh",
                    "rbash", "lksh", "oksh", "pdksh"})
_FS = frozenset
INTERPRETERS: list[tuple[re.Pattern[str], Interpreter]] = [
    (re.compile(r"^(python|pypy)[0-9.]*$"), Interpreter(
        "sys.argv / os.environ", code="c", valued="WX", flags="bBdEhiIOPqsSuvVx?R",
        long_valued=_FS({"--check-hash-based-pycs"}), long_flags=_FS({"--help", "--version"}),
        module="m", argv_after_code=True)),
    (re.compile(r"^(node|nodejs)$"), Interpreter(
        "process.argv / process.env", code="ep", long_code=_FS({"--eval", "--print"}),
        valued="rC", long_valued=_FS({"--require", "--import", "--loader", "--input-type",
                                      "--experimental-loader", "--conditions", "--title"}),
        flags="ichv", long_flags=_FS({"--no-warnings", "--check", "--interactive",
                                      "--enable-source-maps", "--trace-warnings"}))),
    (re.compile(r"^(bun|deno|npx|bunx|tsx|ts-node)$"), Interpreter(
        "process.argv / process.env", code="epc",
        long_code=_FS({"--eval", "--print", "--call"}))),
    (re.compile(r"^perl[0-9.]*$"), Interpreter(
        "@ARGV / %ENV", code="eE", valued="IMm", flags="acnpstTuUvwWXhSl0", attached="ixCdD",
        argv_code="np")),
    (re.compile(r"^ruby[0-9.]*$"), Interpreter(
        "ARGV / ENV", code="e", valued="IrCEFx", flags="acdlnpsSvwyh", argv_code="np")),
    (re.compile(r"^php[0-9.]*$"), Interpreter(
        "$argv / getenv()", code="rBRE", valued="cdfzt", flags="ahilmnqsvwHC")),
    (re.compile(r"^(lua|luajit)[0-9.]*$"), Interpreter(
        "arg / os.getenv()", code="e", valued="l", flags="ivEW")),
    (re.compile(r"^(g?awk|mawk|nawk|busybox-awk)$"), Interpreter(
        'ENVIRON["AGENTV_PROMPT"]', code="e", long_code=_FS({"--source"}), valued="FvilW",
        long_valued=_FS({"--field-separator", "--assign", "--include", "--load"}),
        flags="bcCdDghLMNoOpPrsStVyY", first_is_code=True, program_file="fE",
        argv_after_code=True)),
    (re.compile(r"^g?sed$"), Interpreter(
        "sed's input (a file or stdin)", code="e", long_code=_FS({"--expression"}),
        valued="l", long_valued=_FS({"--line-length"}), flags="nrEsuz",
        long_flags=_FS({"--quiet", "--silent", "--debug", "--posix", "--sandbox",
                        "--regexp-extended", "--separate", "--unbuffered", "--null-data"}),
        attached="i", first_is_code=True, program_file="f")),
    (re.compile(r"^(Rscript|R|osascript|julia|racket|guile|sbcl|clisp|ocaml|ghc|runghc|"
                r"erl|elixir|escript|scala|kotlin|groovy|jshell|gdb|vim|nvim|vi|emacs|ex|"
                r"jq|yq|gojq)$"), Interpreter(
        "the command's arguments", code="ecxE", long_code=_FS({"--eval", "--expr", "--load",
                                                                "--execute", "--command"}))),
    (re.compile(r"^(fish|pwsh|powershell|tclsh|wish|expect|csh|tcsh|xonsh|nu|elvish|"
                r"cmd|ion|rc|es)$"), Interpreter(
        "the command's arguments", code="cC", long_code=_FS({"--command", "-Command",
                                                              "-EncodedCommand"}))),
]
# programs whose every argument is a file name or plain text: a placeholder may be embedded in
# one (AgentV 4.x's `cp fixtures/{EVAL_ID}.expected.txt {OUTPUT_FILE}`)
DATA_PROGRAMS = frozenset({"cat", "cp", "echo", "head", "tail", "tee", "touch", "mkdir", "ls",
                           "wc", "diff", "cmp", "basename", "dirname", "realpath", "readlink"})
# python -m MODULE runs its arguments as code
CODE_MODULES = frozenset({"timeit", "pdb", "code", "cProfile", "profile", "trace", "runpy"})
# shell builtins and keywords that parse an argument again (a word that is a placeholder)
SHELL_EVALUATORS = {
    "eval": "eval, which runs it as code",
    "source": "source, which runs the file it names",
    ".": ". (source), which runs the file it names",
    "trap": "trap, which runs its action as code",
    "let": "let, which evaluates it as arithmetic (array subscripts run $(…))",
    "[[": "[[ … ]], which evaluates -eq operands as arithmetic (array subscripts run $(…))",
    "alias": "alias, which defines code",
    "bind": "bind, which can run commands",
    "complete": "complete, which can run commands",
    "compgen": "compgen, which can run commands",
    "enable": "enable, which loads builtins",
    "fc": "fc, which runs commands",
    "mapfile": "mapfile, whose options run callbacks",
    "readarray": "readarray, whose options run callbacks",
    "read": "read, which takes variable names",
    "getopts": "getopts, which takes variable names",
    "unset": "unset, which takes variable names (array subscripts run $(…))",
}
# these take NAME=VALUE (the value is data) but a bare word is a name (subscripts run $(…))
SHELL_DECLARERS = frozenset({"declare", "typeset", "local", "export", "readonly"})
