"""Whether a run still records in Prefect. The Prefect server (or the API in front of it)
may die mid-run: the cases go on regardless, each recorded by agentv's own writer, and
what Prefect would have recorded (task runs, artifacts, the flow run's final state) is
skipped from then on. ``Recording.lost`` says why it stopped (one line, no credentials);
the console prints it and exits with ``PREFECT_LOST_EXIT`` (docs/cli.md).

No Prefect import at module level: the launcher builds a ``Recording`` before Prefect is
imported."""
from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Awaitable, Callable, TypeVar

from agentv.flows.prefect.artifact_spec import Artifact
from agentv.flows.prefect.stage import Final, Stage

PREFECT_LOST_EXIT = 3
PROBE_EVERY_S, PROBE_MISSES = 1.0, 3  # the API lost: 3 probes in a row refused
SLOW_LOST_S = 120.0  # accepts connections, never answers: lost (a busy one is only slow)
R = TypeVar("R")
log = logging.getLogger("agentv.recording")
# what an exception of these types becomes once scrubbed of a secret (flows/prefect/scrubbed.py)
TRANSPORT_NAMES = ("ConnectError", "ConnectTimeout", "ReadError", "ReadTimeout", "WriteError",
                   "RemoteProtocolError", "PoolTimeout", "ConnectionRefusedError",
                   "ConnectionResetError")


def api_lost(err: BaseException | None) -> bool:
    """Whether ``err`` (or what caused it) says the Prefect API cannot be reached: a
    connection refused, reset or timed out, Prefect's "Failed to reach API", or a 5xx from
    a proxy in front of a dead server."""
    import httpx
    seen: set[int] = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        if isinstance(err, BaseExceptionGroup):
            return any(api_lost(e) for e in err.exceptions)
        if isinstance(err, (httpx.TransportError, ConnectionError)):
            return True
        if isinstance(err, httpx.HTTPStatusError) and err.response.status_code >= 500:
            return True
        text = str(err)
        if text.startswith("Failed to reach API") or text.split(":", 1)[0] in TRANSPORT_NAMES:
            return True
        err = err.__cause__ or (None if err.__suppress_context__ else err.__context__)
    return False  # ``raise … from None`` (a ConfigError, say) hides what it replaced


def bare_api_url() -> str:
    """``PREFECT_API_URL`` without a ``user:password@``."""
    url = os.environ.get("PREFECT_API_URL") or "Prefect's API"
    parts = urllib.parse.urlsplit(url)
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


def lost_reason(err: BaseException) -> str:
    """What the run tells of the API lost (one line, no credentials)."""
    return f"no Prefect API answers at {bare_api_url()} ({_reason(err)})"


def _reason(err: BaseException) -> str:
    import httpx
    cause: BaseException | None = err
    while cause is not None:
        if isinstance(cause, httpx.HTTPStatusError):
            return f"HTTP {cause.response.status_code}"
        if isinstance(cause, (httpx.TransportError, ConnectionError)):
            return f"{type(cause).__name__}: {cause}" if str(cause) else type(cause).__name__
        cause = cause.__cause__ or cause.__context__
    return str(err).splitlines()[0] if str(err) else type(err).__name__


def answers(url: str, timeout: float = 2.0) -> bool | None:
    """Whether a server answers at the API ``url``'s ``/health`` (any HTTP status below 500:
    an auth problem is not a dead server); None: it did not answer in time (a busy server on
    a loaded machine is slow, not lost)."""
    parts = urllib.parse.urlsplit(url)
    bare = parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()
    try:
        with urllib.request.urlopen(f"{bare.rstrip('/')}/health", timeout=timeout):
            return True
    except urllib.error.HTTPError as err:
        return err.code < 500
    except (TimeoutError, socket.timeout):
        return None
    except urllib.error.URLError as err:
        return None if isinstance(err.reason, (TimeoutError, socket.timeout)) else False
    except (OSError, ValueError):
        return False


class Recording:
    """A run's Prefect recording: on until the API is lost (``stop``), then off for good.
    ``watch()`` probes the API while the run goes on, so a dead server is noticed in
    seconds; from then on Prefect's client stops retrying (its back-off would hold each
    pending call, the flow run's final state included, for a minute) and artifacts being
    sent are cancelled."""

    def __init__(self) -> None:
        self.lost: str | None = None  # why recording stopped (one line)
        self._sending: set[asyncio.Future] = set()
        self._retries: tuple[Any, int] | None = None
        self._prefect_ready = False  # Prefect imported (never import it while a thread does)

    def stop(self, err: BaseException) -> None:
        self.stop_with(lost_reason(err))

    def stop_with(self, reason: str) -> None:
        """Recording stops, for ``reason`` (one line, no credentials)."""
        if self.lost is not None:
            return
        self.lost = reason
        log.info("Prefect recording stopped: %s", self.lost)
        self._no_retries()
        for sending in list(self._sending):
            sending.cancel()

    def prefect_imported(self) -> None:
        """Prefect is imported now: its client's retries can be turned off."""
        self._prefect_ready = True
        if self.lost is not None:
            self._no_retries()

    @property
    def prefect_ready(self) -> bool:
        return self._prefect_ready

    def _no_retries(self) -> None:
        if not self._prefect_ready or self._retries is not None:
            return
        _silence_prefect()
        from prefect.settings import get_current_settings
        client = get_current_settings().client
        self._retries = (client, client.max_retries)
        client.max_retries = 0

    def close(self) -> None:
        """The run is over: Prefect's client retries again (a program calling agentv)."""
        if self._retries is not None:
            client, retries = self._retries
            client.max_retries, self._retries = retries, None

    async def watch(self, url: str) -> None:
        """Probe the API until it is lost (or this task is cancelled)."""
        missed, silent_since = 0, None
        while self.lost is None:
            await asyncio.sleep(PROBE_EVERY_S)
            answered = await asyncio.to_thread(answers, url)
            missed = missed + 1 if answered is False else 0
            silent_since = (silent_since or time.monotonic()) if answered is None else None
            if missed >= PROBE_MISSES:
                self.stop(ConnectionError(
                    f"its health check was refused {PROBE_MISSES} times in a row"))
            elif silent_since is not None and time.monotonic() - silent_since >= SLOW_LOST_S:
                self.stop(ConnectionError(
                    f"its health check went unanswered for {SLOW_LOST_S:.0f} s"))

    async def call(self, task: Any, *args: Any, return_state: bool = False) -> Any:
        """Run a stage (or a Prefect task) as a task run of the flow run while recording;
        once the API is lost, or if calling it loses it, run its function in this process
        instead. Only for stages that may run again when Prefect failed around them (they
        run no case twice: the job runner skips what began)."""
        if self.lost is None:
            try:
                return await self._task_run(task, args, return_state)
            except Exception as err:
                if not api_lost(err):
                    raise
                self.stop(err)
        if isinstance(task, Stage):
            return await task.fn(*args)
        from prefect.utilities.annotations import BaseAnnotation
        return await task.fn(*(a.unwrap() if isinstance(a, BaseAnnotation) else a
                               for a in args))

    async def _task_run(self, task: Any, args: tuple[Any, ...], return_state: bool) -> Any:
        if isinstance(task, Stage):
            from prefect.utilities.annotations import quote
            task = prefect_task(task)  # arguments go as they are (a run, thousands of jobs)
            args = tuple(a if isinstance(a, (str, int, float)) else quote(a) for a in args)
        return await (task(*args, return_state=True) if return_state else task(*args))

    async def send(self, spec: Artifact, want_id: bool = False) -> Any:
        """Publish an artifact on the current flow (or task) run; its id, or None."""
        return await self.publish(lambda: self.create(spec, want_id))

    async def create(self, spec: Artifact, want_id: bool = False) -> Any:
        from agentv.flows.prefect.artifact_api import create_artifact
        return await create_artifact(spec)

    def flow_run_id(self) -> str | None:
        from prefect.runtime import flow_run
        return str(flow_run.id) if flow_run.id else None

    def flow_run_url(self) -> str | None:
        """The flow run's page in the Prefect UI (None outside a flow run)."""
        from prefect.runtime import flow_run
        try:
            return flow_run.ui_url
        except Exception:  # noqa: BLE001 - outside a flow run: no page to link
            return None

    async def ids(self) -> tuple[str | None, str | None]:
        """The flow run's id and UI page (None, None: none)."""
        return self.flow_run_id(), self.flow_run_url()

    def logger(self) -> logging.Logger | logging.LoggerAdapter:
        return run_logger()

    async def end(self, final: Final) -> Any:
        """The flow run's final state (what the flow returns)."""
        from agentv.flows.prefect.final_state import prefect_state
        return await prefect_state(final)

    async def publish(self, make: Callable[[], Awaitable[R]]) -> R | None:
        """Publish to Prefect (an artifact) while recording; an API lost stops recording."""
        if self.lost is not None:
            return None
        sending = asyncio.ensure_future(make())
        self._sending.add(sending)
        try:
            return await sending
        except asyncio.CancelledError:
            if self.lost is not None and sending.cancelled():
                return None  # cancelled by stop(): the API is gone
            raise
        except Exception as err:
            if not api_lost(err):
                raise
            self.stop(err)
            return None
        finally:
            self._sending.discard(sending)


def _silence_prefect() -> None:
    """The API is gone: the one ``error:`` line says so. Prefect's services would print
    each failed send (a traceback per event batch, "--- Error logging to API ---"), now and
    at exit, so its loggers go quiet and its log sender's stderr fallback with them."""
    logging.raiseExceptions = False
    for name, logger in list(logging.root.manager.loggerDict.items()):
        if name.split(".", 1)[0] == "prefect" and isinstance(logger, logging.Logger):
            logger.disabled = True
    for name in _service_names():  # "EventsWorker - Still processing items" at exit
        logging.getLogger(name).disabled = True


def _service_names() -> set[str]:
    """Prefect's queue services (events, logs) log under their class name, outside
    ``prefect.*``."""
    from prefect._internal.concurrency.services import _QueueServiceBase
    found: set[str] = set()
    todo: list[type] = [_QueueServiceBase]
    while todo:
        subclasses: list[type] = todo.pop().__subclasses__()
        found.update(sub.__name__ for sub in subclasses)
        todo.extend(subclasses)
    return found


def run_logger() -> logging.Logger | logging.LoggerAdapter:
    """The flow or task run's logger; agentv's own outside a Prefect run (recording lost
    before the flow run existed)."""
    from prefect import get_run_logger
    from prefect.exceptions import MissingContextError
    try:
        return get_run_logger()
    except MissingContextError:
        return logging.getLogger("agentv.flow")


_TASKS: dict[str, Any] = {}


def prefect_task(stage: Stage) -> Any:
    """The Prefect task of a stage (made once per process)."""
    made = _TASKS.get(stage.name)
    if made is None or made.fn is not stage.fn:
        from prefect import task
        from prefect.cache_policies import NO_CACHE

        from agentv.flows.prefect.scrubbed import PERSIST
        made = _TASKS[stage.name] = task(name=stage.name, cache_policy=NO_CACHE,
                                         persist_result=PERSIST,
                                         task_run_name=stage.run_name)(stage.fn)
    return made
