"""How the commands report: ``fail`` prints a configuration error as one line and exits 2
(the traceback only with ``--verbose``); ``setup_logging`` sends agentv's log to stderr,
scrubbed of secrets. Shared by ``agentv`` and ``agentv worker`` (typer only)."""
from __future__ import annotations

import logging
import sys
import traceback
from typing import NoReturn

import typer

from agentv.providers.errors import ConfigError, error_lines
from agentv.providers.printable import printable


def fail(err: ConfigError, verbose: bool = False) -> NoReturn:
    """Every error of the check, one line each (control characters escaped), exit 2."""
    if verbose:
        traceback.print_exc()
    for line in error_lines(err):
        typer.echo(f"error: {printable(line)}", err=True)
    raise typer.Exit(2)


def setup_logging(verbose: bool) -> None:
    from agentv.tasks.load.redact import RedactingFilter
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(RedactingFilter())
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("agentv")
    logger.handlers[:] = [handler]
    logger.setLevel(logging.INFO if verbose else logging.WARNING)
    logger.propagate = False
