"""``agentv server``: start, stop, status and prune the local Prefect server agentv uses by
default (flows/prefect/server.py; typer only until a command runs)."""
from __future__ import annotations

import typer

from agentv.flows.cli.output import fail
from agentv.providers.errors import ConfigError

server_app = typer.Typer(help="The local Prefect server agentv uses by default.",
                         no_args_is_help=True, rich_markup_mode=None)


@server_app.command("start")
def server_start() -> None:
    """Start (or reuse) the background Prefect server and print its URLs."""
    from agentv.flows.prefect.server import start_server, ui_url, usable_url
    url = usable_url() or start_server()
    typer.echo(f"Prefect API: {url}\nPrefect UI:  {ui_url() or url.removesuffix('/api')}")


@server_app.command("stop")
def server_stop() -> None:
    """Stop the background Prefect server."""
    from agentv.flows.prefect.server import stop_server
    typer.echo("stopped" if stop_server() else "no agentv Prefect server recorded")


@server_app.command("status")
def server_status() -> None:
    """Show whether the background Prefect server answers."""
    from agentv.flows.prefect.server import read_state, running_url
    url = running_url()
    state = read_state() or {}
    typer.echo(f"running: {state.get('ui_url')}" if url else "not running")
    raise typer.Exit(0 if url else 1)


@server_app.command("prune", short_help="Delete flow runs older than --older-than (30d) "
                    "and shrink the database.")
def server_prune(
    older_than: str = typer.Option("30d", metavar="AGE",
                                   help="Delete flow runs that started more than AGE ago "
                                   "(30d, 12h, 90m, 2w)."),
    compact: bool = typer.Option(True, "--compact/--no-compact",
                                 help="On agentv's own server, also delete events and logs "
                                 "older than AGE and give the freed space back to the disk "
                                 "(VACUUM, write-ahead log emptied)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Tracebacks on errors."),
) -> None:
    """Delete old flow runs (their task runs, logs and artifacts with them) from the
    Prefect server: PREFECT_API_URL's, else agentv's own. On agentv's own server the
    database file then shrinks; another server only gets the API's deletes."""
    import asyncio
    import sqlite3

    from agentv.flows.prefect.prune import parse_age, prune_flow_runs, shrink
    from agentv.flows.prefect.server import own_database, running_api
    try:
        age = parse_age(older_than)
        url = running_api()
        if url is None:
            raise ConfigError("no Prefect server answers (start one with `agentv server "
                              "start`, or set it)", None, "PREFECT_API_URL")
        pruned = asyncio.run(prune_flow_runs(age))
    except ConfigError as err:
        fail(err, verbose)
    typer.echo(f"pruned {pruned.flow_runs} flow run(s) and {pruned.artifacts} artifact(s) "
               f"older than {older_than}")
    if compact:
        try:
            typer.echo(shrink(own_database(url), age))
        except sqlite3.Error as err:
            fail(ConfigError(f"could not compact the database ({err}); the runs are "
                             "deleted, try again later", None, "database"), verbose)
