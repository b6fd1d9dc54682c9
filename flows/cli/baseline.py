"""``agentv baseline promote RESULTS``: pin a run's results as its nightly's baseline
(tasks/results/baselines.py; typer only until the command runs)."""
from __future__ import annotations

from typing import List, Optional

import typer

from agentv.flows.cli.output import fail
from agentv.providers.errors import ConfigError

baseline_app = typer.Typer(help="The nightly's baseline (default: its last successful run).",
                           no_args_is_help=True, rich_markup_mode=None)


@baseline_app.command("promote", short_help="Pin RESULTS as its nightly's baseline.")
def baseline_promote(
    results: str = typer.Argument(..., metavar="RESULTS", help="Results file to pin."),
    out_dir: Optional[str] = typer.Option(
        None, metavar="DIR", help="The nightly's out_dir (default: the results' run folder's "
        "parent, where a nightly keeps index.jsonl)."),
    deployment: Optional[str] = typer.Option(
        None, metavar="NAME", help="Pin for this deployment (with --suite; default: the run "
        "that wrote RESULTS). 'local' for the flow called outside a deployment."),
    suite: Optional[List[str]] = typer.Option(
        None, metavar="PATH", help="The deployment's suites parameter, repeatable."),
) -> None:
    """Pin RESULTS as the baseline its nightly compares with until the next pin."""
    from agentv.providers.printable import printable
    from agentv.tasks.results.baselines import promote, run_key
    if bool(deployment) != bool(suite):
        fail(ConfigError("give --deployment and --suite together", None, "--deployment"))
    key = run_key(deployment, list(suite or [])) if deployment else None
    try:
        entry = promote(results, out_dir, key)
    except ConfigError as err:
        fail(err)
    typer.echo(f"baseline of {printable(entry['key'])}: {printable(entry['results'])}")
