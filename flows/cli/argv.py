"""The command line as typed, made ready for click: AgentV 4.x's ``agentv eval run ...``
spelling (``run`` dropped unless it names a file) and options whose value is optional."""
from __future__ import annotations

import os
from pathlib import Path

OPTIONAL_VALUE_FLAGS = {"--dump-prompts": ".agentv/prompts", "--dump-traces": ".agentv/traces",
                        "--resume": "", "--rerun-failed": ""}
RESULTS_FLAGS = ("--resume", "--rerun-failed")  # their value: an existing results file
EVAL_SUFFIXES = (".yaml", ".yml", ".jsonl")


def _is_results_file(token: str) -> bool:
    """An existing results file: empty (``kill -9`` before the first record) or holding
    ``case_key`` in its first record (JSONL or YAML)."""
    try:
        with open(token, encoding="utf-8", errors="replace") as fh:
            head = fh.read(64 * 1024)
    except OSError:
        return False
    return not head.strip() or "case_key" in head


def _takes_value(flag: str, token: str | None) -> bool:
    if token is None or token.startswith("-"):
        return False
    if flag in RESULTS_FLAGS:  # an existing results file, or one --resume will start
        return _is_results_file(token) or (not os.path.exists(token)
                                           and not any(c in token for c in "*?["))
    return not token.endswith(EVAL_SUFFIXES) and not any(c in token for c in "*?[")


def expand_optional_values(argv: list[str]) -> list[str]:
    """``--dump-prompts`` / ``--dump-traces`` / ``--resume`` / ``--rerun-failed`` take an
    optional value (the last two: the newest results file, ``latest``)."""
    out: list[str] = []
    for i, arg in enumerate(argv):
        out.append(arg)
        if arg in OPTIONAL_VALUE_FLAGS:
            nxt = argv[i + 1] if i + 1 < len(argv) else None
            if not _takes_value(arg, nxt):
                out.append(OPTIONAL_VALUE_FLAGS[arg] or "latest")
    return out


def agentv_argv(argv: list[str]) -> list[str]:
    """``eval run PATHS`` (AgentV 4.42.4's command, the peer benchmark's) is ``eval PATHS``;
    then the optional values filled in."""
    if argv[:2] == ["eval", "run"] and not Path("run").exists():
        argv = ["eval", *argv[2:]]
    return expand_optional_values(argv)


def given(value: object) -> bool:
    """A flag the command line set: an empty text (``--out ''``) is given — and checked —
    not dropped as if it were absent."""
    return value is not None and value is not False and value != [] and value != ()


def whole_number(value: str | None, flag: str, default: int, most: int = 1_000_000) -> int:
    """A count flag given as text (``--show-failures N``): 0 to ``most``, else ConfigError."""
    from agentv.providers.errors import ConfigError
    if value is None:
        return default
    text = str(value).strip()
    if not text.isdigit() or int(text) > most:
        raise ConfigError(f"must be a whole number from 0 to {most}, got {value!r}", None, flag)
    return int(text)


def usage_error(err) -> list[str]:
    """A click usage error (unknown flag, bad value, missing argument) as agentv's one line
    ``error: --flag: message``, not click's usage box."""
    from typer._click import exceptions as click

    from agentv.providers.errors import did_you_mean
    if isinstance(err, click.NoSuchOption):
        known = err.possibilities or [o for p in (err.ctx.command.params if err.ctx else [])
                                      for o in p.opts]
        return [f"{err.option_name}: no such option{did_you_mean(err.option_name, known)} "
                f"(see '{_command(err)} --help')"]
    param = getattr(err, "param", None)
    name = getattr(err, "option_name", None) or (
        (param.opts[0] if param.opts else param.name) if param is not None else _command(err))
    if isinstance(err, click.MissingParameter):
        message = "required (see the command's --help)"
    elif isinstance(err, click.BadParameter):
        message = err.message
    else:
        message = err.format_message()
    return [f"{name}: {_plain(message)}"]


def _command(err) -> str:
    ctx = getattr(err, "ctx", None)
    return ctx.command_path if ctx is not None else "agentv"


def _plain(message: str) -> str:
    text = " ".join(str(message).split()).rstrip(".")
    return text[:1].lower() + text[1:]


def run_app(app, args: list[str], prog_name: str) -> None:
    """Run the typer app, reporting click's usage errors as one line, exit 2 (``agentv`` with
    no arguments still shows its help)."""
    import typer
    from typer._click import exceptions as click  # typer's own copy of click's
    try:
        code = app(args=args, prog_name=prog_name, standalone_mode=False)
    except click.NoArgsIsHelpError as err:
        err.show()
        code = err.exit_code
    except click.UsageError as err:
        from agentv.providers.printable import printable
        for line in usage_error(err):
            typer.echo(f"error: {printable(line)}", err=True)
        code = 2
    except click.ClickException as err:
        err.show()
        code = err.exit_code
    except typer.Abort:
        typer.echo("Aborted!", err=True)
        code = 1
    raise SystemExit(code if isinstance(code, int) else 0)
