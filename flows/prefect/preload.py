"""Prefect's console, kept quiet: its own INFO lines and the echo of a failed gate stay
out of the terminal (they still reach the API)."""
from __future__ import annotations

import logging
import os


def quiet_prefect_console(verbose: bool) -> None:
    """Prefect's own INFO lines stay out of the console (they still reach the API)."""
    if verbose:
        return
    for handler in ("CONSOLE", "CONSOLE_FLOW_RUNS", "CONSOLE_TASK_RUNS"):
        os.environ.setdefault(f"PREFECT_LOGGING_HANDLERS_{handler}_LEVEL", "WARNING")


ECHOS = ("Finished in state Failed(", "Task run failed with state: Failed(message=")
ECHOED = ("quality gate failed", "case failed (")


class GateEcho(logging.Filter):
    """Drops Prefect's ``Finished in state Failed('quality gate failed: …')`` console line
    (and a failed case's, ``--prefect-tasks case``): the console's summary says it already
    (QUALITY GATE FAILED, FAILED); the API keeps the line."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = str(record.msg)
        return not any(text.startswith(echo) and
                       text[len(echo):].lstrip("'\"").startswith(ECHOED) for echo in ECHOS)


def drop_gate_echo(verbose: bool) -> None:
    """On Prefect's console handlers (the root logger's, where Prefect's run loggers
    propagate; once Prefect is imported)."""
    if verbose:
        return
    from prefect.logging.handlers import APILogHandler
    handlers = [*logging.getLogger().handlers, *logging.getLogger("prefect").handlers,
                *logging.getLogger("prefect.flow_runs").handlers,
                *logging.getLogger("prefect.task_runs").handlers]
    for handler in handlers:
        if not isinstance(handler, APILogHandler) and \
                not any(isinstance(f, GateEcho) for f in handler.filters):
            handler.addFilter(GateEcho())
