"""The embedded default Prefect server: one long-lived local server that outlives runs.

``PREFECT_API_URL`` set → used as is. Otherwise agentv reuses the local server recorded in
``$AGENTV_HOME/server.json`` (default ``~/.agentv``) when it answers, or starts one in
the background (``prefect server start`` on a free loopback port, home under
``$AGENTV_HOME/prefect``) and waits for it. That server keeps every run visible in the UI
and avoids the temporary server's 9–23 s start and its lost task runs at exit. If it
cannot start, agentv falls back to Prefect's temporary server.
No Prefect import here (the server is a separate process).
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from contextlib import contextmanager
from pathlib import Path

QUIET_ENV = {
    "DO_NOT_TRACK": "1",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "90",
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE": "200",
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_READ_BATCH_SIZE": "200",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_TELEMETRY": "False",
}
START_TIMEOUT_S = 90.0


def agentv_home() -> Path:
    return Path(os.environ.get("AGENTV_HOME") or Path.home() / ".agentv")


def default_database() -> Path:
    """The SQLite file agentv's own server keeps its database in (Prefect's default under
    its home)."""
    return agentv_home() / "prefect" / "prefect.db"


DATABASE_URL_ENV = ("PREFECT_SERVER_DATABASE_CONNECTION_URL",
                    "PREFECT_API_DATABASE_CONNECTION_URL")


def own_database_file() -> Path | None:
    """The database file the server about to start will use; None when the environment
    points it elsewhere (another file or PostgreSQL: the user's to look after)."""
    return None if any(os.environ.get(k) for k in DATABASE_URL_ENV) else default_database()


def own_database(api_url: str) -> Path | None:
    """The SQLite file of agentv's own server when ``api_url`` is that server's API (and
    it keeps its database in the file it was started with), else None."""
    state = read_state() or {}
    if not api_url or state.get("api_url", "").rstrip("/") != api_url.rstrip("/"):
        return None
    database = state.get("database", str(default_database()))  # older state: the default
    return Path(database) if database and Path(database).exists() else None


def _state_file() -> Path:
    return agentv_home() / "server.json"


def healthy(url: str, timeout: float = 1.0) -> bool:
    try:
        with urllib.request.urlopen(f"{url.rstrip('/')}/health", timeout=timeout) as resp:
            return resp.status == 200
    except (OSError, ValueError):
        return False


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def read_state() -> dict | None:
    try:
        return json.loads(_state_file().read_text())
    except (OSError, ValueError):
        return None


def running_url() -> str | None:
    state = read_state()
    if state and healthy(state.get("api_url", "")):
        return state["api_url"]
    return None


def ui_url() -> str | None:
    """The recorded server's UI address (``http://127.0.0.1:PORT``), or None."""
    return (read_state() or {}).get("ui_url")


def usable_url() -> str | None:
    """The recorded server's API URL when it answers AND its UI talks to it; a server
    started by an older agentv (UI pointing at :4200) is stopped so a new one starts."""
    url = running_url()
    if url and ui_api_url(url) not in (url, None):
        stop_server()
        time.sleep(0.5)
        return None
    return url


def ui_env(port: int) -> dict[str, str]:
    """``--port`` alone leaves the UI's ``/ui-settings`` pointing at port 4200: the UI
    would show "Can't connect" (or another server's data). The API port and the UI's API
    URL must name the port the server actually listens on."""
    return {"PREFECT_SERVER_API_HOST": "127.0.0.1", "PREFECT_SERVER_API_PORT": str(port),
            "PREFECT_UI_API_URL": f"http://127.0.0.1:{port}/api",
            "PREFECT_UI_URL": f"http://127.0.0.1:{port}"}


def ui_api_url(url: str, timeout: float = 2.0) -> str | None:
    """The API URL the server's UI uses (its ``/ui-settings``), or None."""
    base = url.rstrip("/").removesuffix("/api")
    try:
        with urllib.request.urlopen(f"{base}/ui-settings", timeout=timeout) as resp:
            return json.loads(resp.read()).get("api_url")
    except (OSError, ValueError):
        return None


def start_server(wait: bool = True) -> str:
    """Start a detached ``prefect server start`` and record it; returns the API URL."""
    home = agentv_home()
    (home / "prefect").mkdir(parents=True, exist_ok=True)
    port = _free_port()
    url = f"http://127.0.0.1:{port}/api"
    from agentv.flows.prefect.prune import retention_env
    database = own_database_file()
    _compact_before_start(database)
    env = {**os.environ, **QUIET_ENV, **ui_env(port), **retention_env(),
           "PREFECT_HOME": str(home / "prefect")}
    env.pop("PREFECT_API_URL", None)
    log = open(home / "server.log", "ab")
    # a run holds SIGTERM until its flow is armed (flows/signals.sigterm_held); the server
    # outlives the run and must not inherit that (`agentv server stop` sends SIGTERM)
    held = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1",
             "--port", str(port)],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
            start_new_session=True)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    _state_file().write_text(json.dumps({"pid": proc.pid, "started": started_at(proc.pid),
                                         "api_url": url, "port": port,
                                         "ui_url": f"http://127.0.0.1:{port}",
                                         "database": str(database) if database else None}))
    if wait:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if healthy(url):
                return url
            if proc.poll() is not None:
                raise RuntimeError(f"prefect server exited with code {proc.returncode} "
                                   f"(see {home / 'server.log'})")
            time.sleep(0.25)
        raise RuntimeError(f"prefect server did not answer within {START_TIMEOUT_S:.0f}s")
    return url


def _compact_before_start(database: Path | None) -> None:
    """The server's own schedule: a file with much free space (rows Prefect's vacuum
    service or a prune deleted) is compacted before the server opens it. A failure leaves
    the file as it was; the server starts anyway."""
    import sqlite3

    from agentv.flows.prefect.db_compact import compact, worth_compacting
    if database is None or not worth_compacting(database):
        return
    try:
        compact(database, timeout_s=10.0)
    except sqlite3.Error:
        pass


def started_at(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot, /proc/PID/stat): with the pid,
    it names one process, so a stop never signals a later process that reuses the pid."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    return int(stat[stat.rfind(b")") + 2:].split()[19])


def stop_server() -> bool:
    return stop_recorded(read_state(), _state_file())


def stop_recorded(state: dict | None, state_file: Path) -> bool:
    """Stop a background server agentv recorded (its process group) and forget it; False
    when none was recorded. Shared by the Prefect server and the viewer."""
    if not state:
        return False
    try:
        if state.get("started") in (None, started_at(state["pid"])):  # not a reused pid
            os.killpg(state["pid"], signal.SIGTERM)
    except (ProcessLookupError, PermissionError, KeyError):
        pass
    state_file.unlink(missing_ok=True)
    return True


def running_api() -> str | None:
    """If a Prefect API is configured or the local server answers, point this process at
    it (before Prefect is imported) and return its URL; else None. Starts nothing."""
    for key, value in QUIET_ENV.items():
        os.environ.setdefault(key, value)
    url = os.environ.get("PREFECT_API_URL") or running_url()
    if url:
        os.environ["PREFECT_API_URL"] = url
        hide_credentials_in_ui_url(url)
    return url


def without_credentials(url: str) -> str:
    """``url`` without its ``user:password@``, query and fragment."""
    parts = urllib.parse.urlsplit(url)
    return parts._replace(netloc=parts.netloc.rpartition("@")[2], query="",
                          fragment="").geturl()


def hide_credentials_in_ui_url(api_url: str) -> None:
    """Prefect prints "View at <UI URL>" and agentv the flow run's link; Prefect's UI URL
    defaults to the API URL, credentials and all. A ``PREFECT_API_URL`` with a
    ``user:password@`` or a query gets ``PREFECT_UI_URL`` without them (unless the user
    set one without credentials), before Prefect reads its settings."""
    clean = without_credentials(api_url)
    ui = os.environ.get("PREFECT_UI_URL")
    if clean != api_url.rstrip("?#") and (not ui or without_credentials(ui) != ui):
        os.environ["PREFECT_UI_URL"] = clean.rstrip("/").removesuffix("/api")


@contextmanager
def _start_lock():
    import fcntl
    agentv_home().mkdir(parents=True, exist_ok=True)
    with open(agentv_home() / "server.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def ensure_api(log=print) -> str | None:
    """Point this process at a Prefect API; returns the URL (None = temporary server)."""
    for key, value in QUIET_ENV.items():
        os.environ.setdefault(key, value)
    if os.environ.get("PREFECT_API_URL"):
        hide_credentials_in_ui_url(os.environ["PREFECT_API_URL"])
        return _answering(os.environ["PREFECT_API_URL"])
    try:
        with _start_lock():  # two runs starting at once share one server
            url = usable_url()
            if url is None:
                log("agentv: starting the local Prefect server (first run only; it stays up, "
                    "stop it with `agentv server stop`)")
                url = start_server()
    except (OSError, RuntimeError) as err:
        log(f"agentv: could not start a local Prefect server ({err}); "
            "using Prefect's temporary server")
        return None
    os.environ["PREFECT_API_URL"] = url
    return url


def _answering(url: str) -> str:
    """``url`` when a Prefect API answers there (any HTTP status: an auth problem is
    Prefect's to report); else a configuration error, before any case runs."""
    parts = urllib.parse.urlsplit(url)
    user, _, host = parts.netloc.rpartition("@")
    bare = parts._replace(netloc=host).geturl()  # never shown with its user:password@
    headers = {"Authorization": f"Bearer {os.environ['PREFECT_API_KEY']}"} \
        if os.environ.get("PREFECT_API_KEY") else {}
    if user:
        import base64
        headers = {"Authorization": "Basic " + base64.b64encode(
            urllib.parse.unquote(user).encode()).decode()}
    try:
        request = urllib.request.Request(f"{bare.rstrip('/')}/health", headers=headers)
        with urllib.request.urlopen(request, timeout=5):
            return url
    except urllib.error.HTTPError:
        return url
    except (OSError, ValueError) as err:
        from agentv.providers.errors import ConfigError
        raise ConfigError(f"no Prefect API answers at {bare} ({getattr(err, 'reason', err)}); "
                          "point it at a running Prefect server, or unset it to use agentv's "
                          "local server", field="PREFECT_API_URL") from None
