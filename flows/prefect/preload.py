"""Import Prefect (and what the end of a run needs) in the background, as early as possible.

Prefect's import costs 1–2 s here. When a Prefect API is already reachable, agentv starts
that import on a thread at the very start of ``agentv eval`` so it overlaps argument
parsing, file validation and preflight; the main thread's later import just waits for it.
Prefect reads its settings at import, so this only happens after ``PREFECT_API_URL`` is set.
"""
from __future__ import annotations

import importlib
import logging
import os
import sys
import threading

# pyarrow: at the first Parquet row group; pandas: never
HEAVY = ("agentv.flows.pipeline", "aiohttp")
THREAD = "agentv-preload"
IMPORT_THREAD = "agentv-prefect-import"  # flows.launch: the flow's import, a stop not waiting


def importing_prefect() -> bool:
    """Whether a thread of ours is still importing Prefect."""
    return any(t.name in (THREAD, IMPORT_THREAD) and t.is_alive()
               for t in threading.enumerate())


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


def preload(*modules: str) -> threading.Thread:
    def work() -> None:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - the real import will report it
                return
    thread = threading.Thread(target=work, name=THREAD, daemon=True)
    thread.start()
    return thread


def preload_if_api_ready() -> bool:
    """Once per process: if a Prefect API answers, point at it and start the imports (not
    again while they run or once they are done)."""
    if all(name in sys.modules for name in HEAVY) or \
            any(t.name == THREAD and t.is_alive() for t in threading.enumerate()):
        return True
    from agentv.flows.prefect.server import running_api
    if not running_api():
        return False
    preload(*HEAVY)
    return True
