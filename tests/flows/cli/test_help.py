"""``agentv --help`` and every command's ``--help`` read at 80 columns: no line wider, no
option name or command description cut short (the real command, COLUMNS=80)."""
from __future__ import annotations

import click
import pytest
import typer

from flows.cli.main import app
from tests.conftest import run_cli


def commands() -> list[tuple[list[str], click.Command]]:
    """Every command path (``[]`` for agentv itself) with its click command."""
    found: list[tuple[list[str], click.Command]] = []

    def walk(path: list[str], command: click.Command) -> None:
        found.append((path, command))
        for name, sub in getattr(command, "commands", {}).items():
            walk(path + [name], sub)
    walk([], typer.main.get_command(app))
    return found


@pytest.mark.parametrize("path,command", commands(),
                         ids=lambda v: " ".join(v) or "agentv" if isinstance(v, list) else "")
def test_help_reads_at_80_columns(path, command):
    proc = run_cli(*path, "--help", env={"COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    wide = [line for line in text.splitlines() if len(line) > 80]
    assert not wide, wide
    assert "…" not in text
    for param in command.params:
        for name in [*getattr(param, "opts", []), *getattr(param, "secondary_opts", [])]:
            if name.startswith("-"):
                assert name in text.replace(",", " ").split(), (name, text)
    listed = text.split("Commands:")[1].splitlines() if "Commands:" in text else []
    cut = [line for line in listed if line.rstrip().endswith("...")]
    assert not cut, cut  # every command's one-line description is whole


def test_every_eval_option_is_listed_once_with_its_value_name():
    text = run_cli("eval", "--help", env={"COLUMNS": "80"}).stdout
    for option in ("--dry-run-delay-min MS", "--dry-run-delay-max MS", "--fail-under SCORE",
                   "--output-format, --format jsonl|yaml", "--agent-timeout SECONDS"):
        assert text.count(option) == 1, option
