"""``agentv --help`` and every command's ``--help`` read at 80 columns: no line wider, no
option name or command description cut short (the real entry point, COLUMNS=80)."""
from __future__ import annotations

import os
import subprocess
import sys

import click
import typer

from agentv.flows.cli.main import app
from tests.conftest import ROOT

# one interpreter prints every command's help (each a separate call of the agentv entry)
PRINT_ALL = """\
import sys
from agentv.flows.cli.main import main
for path in sys.argv[1:]:
    print("=== " + path, flush=True)
    try:
        main([*path.split(), "--help"])
    except SystemExit as stop:
        print("=== exit", stop.code, flush=True)
"""


def commands() -> list[tuple[str, click.Command]]:
    """Every command path (``""`` for agentv itself) with its click command."""
    found: list[tuple[str, click.Command]] = []

    def walk(path: str, command: click.Command) -> None:
        found.append((path, command))
        for name, sub in getattr(command, "commands", {}).items():
            walk(f"{path} {name}".strip(), sub)
    walk("", typer.main.get_command(app))
    return found


def helps() -> dict[str, str]:
    paths = [path for path, _ in commands()]
    env = {**os.environ, "COLUMNS": "80", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", PRINT_ALL, *paths], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out: dict[str, str] = {}
    for chunk in proc.stdout.split("=== ")[1:]:
        head, _, text = chunk.partition("\n")
        if head.startswith("exit"):
            assert head == "exit 0", head
        else:
            out[head] = text
    assert list(out) == paths
    return out


def test_every_help_reads_at_80_columns():
    texts = helps()
    for path, command in commands():
        text = texts[path]
        wide = [line for line in text.splitlines() if len(line) > 80]
        assert not wide, (path, wide)
        assert "…" not in text, path
        words = text.replace(",", " ").split()
        for param in command.params:
            for name in [*getattr(param, "opts", []), *getattr(param, "secondary_opts", [])]:
                if name.startswith("-"):
                    assert name in words, (path, name)
        listed = text.split("Commands:")[1].splitlines() if "Commands:" in text else []
        cut = [line for line in listed if line.rstrip().endswith("...")]
        assert not cut, (path, cut)  # every command's one-line description is whole
    assert "  init      Write a starter suite" in texts[""]
    for option in ("--dry-run-delay-min MS", "--dry-run-delay-max MS", "--fail-under SCORE",
                   "--output-format, --format jsonl|yaml", "--agent-timeout SECONDS"):
        assert texts["eval"].count(option) == 1, option
