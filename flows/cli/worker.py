"""``agentv worker``: an EvalLoop worker process of the typed API (one of N, on any machine).

    agentv worker --requests redis://HOST:6379/0#eval-requests \\
                  --results redis://HOST:6379/0#eval-results --program qa_eval:program

``--program module:attr`` names an ``EvalProgram`` (evaluator, target, input/expected
types) or a plain evaluator function (then ``--target`` names the target in targets.yaml).
The current directory is importable. No Prefect here: the worker runs each sample through
agentv's job runner and can append the result records to ``--out``.
"""
from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any, Optional

import typer

from agentv.providers.errors import ConfigError


def load_program(spec: str) -> Any:
    from agentv.tasks.api.evalloop import EvalProgram

    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ConfigError(f"must look like module:attr, got {spec!r}", None, "--program")
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        value: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            value = getattr(value, part)
    except (ImportError, AttributeError) as err:
        raise ConfigError(f"cannot import {spec!r}: {err}", None, "--program") from None
    if isinstance(value, EvalProgram):
        return value
    if callable(value):
        return EvalProgram(evaluator=value)
    raise ConfigError(f"{spec!r} is neither an EvalProgram nor an evaluator", None, "--program")


def worker_command(
    requests: str = typer.Option(..., "--requests",
                                 help="Requests mailbox: redis://HOST:PORT/DB#NAME."),
    results: str = typer.Option(..., "--results",
                                help="Results mailbox: redis://HOST:PORT/DB#NAME."),
    program: str = typer.Option(..., "--program",
                                help="module:attr — an EvalProgram or an evaluator."),
    target: Optional[str] = typer.Option(None, "--target", help="Target name in targets.yaml "
                                         "(overrides the program's)."),
    targets: Optional[str] = typer.Option(None, "--targets", help="targets.yaml path."),
    judge: Optional[str] = typer.Option(None, "--judge", help="Judge target name."),
    out: Optional[str] = typer.Option(None, "--out", "-o", help="Append result records (JSONL)."),
    workers: int = typer.Option(1, "--workers", "-w", help="Samples run at once in this process."),
    visibility_timeout: float = typer.Option(60.0, "--visibility-timeout",
                                             help="Seconds a dead worker's sample stays hidden."),
    max_deliveries: int = typer.Option(5, "--max-deliveries",
                                       help="Deliveries before a sample is dead-lettered."),
    retry_delay: float = typer.Option(1.0, "--retry-delay", help="First redelivery delay (s)."),
    verbose: bool = typer.Option(False, "--verbose", "-v"),
) -> None:
    """Run samples from a requests mailbox until SIGTERM (typed API workers)."""
    from agentv.flows.cli.output import fail, setup_logging

    setup_logging(verbose)
    try:
        loop = build_loop(requests, results, program, target, targets, judge, out, workers,
                          visibility_timeout, max_deliveries, retry_delay)
    except ConfigError as err:
        fail(err, verbose)
    except ValueError as err:
        fail(ConfigError(str(err), None, "mailbox"), verbose)
    typer.echo(f"worker: polling {requests.split('@')[-1]} (target {loop.target_name})", err=True)
    handled = loop.run()
    typer.echo(f"worker: stopped after {handled} message(s)", err=True)


def build_loop(requests: str, results: str, program: str, target: str | None,
               targets: str | None, judge: str | None, out: str | None, workers: int,
               visibility_timeout: float, max_deliveries: int, retry_delay: float):
    from agentv.tasks.api.eval_client import request_mailbox, result_mailbox
    from agentv.tasks.api.evalloop import EvalLoop

    for url in (requests, results):
        if url.startswith("memory://"):
            raise ConfigError("a worker process needs a shared mailbox (redis://...)", None, url)
    spec = load_program(program)
    chosen = target or spec.target
    if chosen is None:
        raise ConfigError("no target: pass --target NAME or set EvalProgram.target", None,
                          "--target")
    return EvalLoop(loop=chosen, evaluator=spec.evaluator, judge=judge or spec.judge,
                    targets=targets,
                    requests=request_mailbox(requests, spec.input_type, spec.expected_type,
                                             max_deliveries),
                    results=result_mailbox(results), out=out, workers=workers,
                    visibility_timeout=visibility_timeout, retry_delay_seconds=retry_delay)
