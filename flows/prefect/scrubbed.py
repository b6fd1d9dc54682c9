"""What Prefect keeps of agentv's flow and task runs holds no secret: an exception leaving a
flow or task is scrubbed before Prefect turns it into a state message, logs it (console and
API) or pickles it (Prefect always pickles a failed flow run's exception into
``PREFECT_LOCAL_STORAGE_PATH``, persist_result or not), and agentv's runs persist no results
(``PERSIST``: no task or flow result is pickled there, even when a profile sets
``PREFECT_RESULTS_PERSIST_BY_DEFAULT``; the records live in agentv's own results file)."""
from __future__ import annotations

import functools
from typing import Any, Awaitable, Callable, TypeVar

from agentv.providers import secrets
from agentv.providers.errors import ConfigError
from agentv.tasks.load.redact import redact

PERSIST = False
F = TypeVar("F", bound=Callable[..., Awaitable[Any]])


def scrubbed(err: Exception) -> Exception:
    """``err`` itself when it holds no secret (in its message or its attributes, which
    Prefect pickles too); else a copy with the secrets masked (a ConfigError stays one;
    anything else becomes a RuntimeError naming its type)."""
    text = str(err)
    held = text + repr(getattr(err, "__dict__", {}))
    if redact(held) == held:
        return err
    if isinstance(err, ConfigError):
        return ConfigError(redact(err.message), err.where and redact(err.where), err.field)
    return RuntimeError(redact(f"{type(err).__name__}: {text}"))


def scrub_errors(fn: F) -> F:
    """Decorate an async flow or task function: its exceptions reach Prefect scrubbed, with
    the secrets of the context's registry, or — a context without one (a deployment's flow
    run, a Dask worker's batch) — of the registry the call registers them in."""
    @functools.wraps(fn)
    async def run(*args: Any, **kwargs: Any) -> Any:
        with secrets.scope():
            try:
                return await fn(*args, **kwargs)
            except Exception as err:
                clean = scrubbed(err)
                if clean is err:
                    raise
        # raised outside the handler: no __context__ holding the original (tblib's pickling,
        # installed by Dask, would carry it into Prefect's storage)
        raise clean
    return run  # type: ignore[return-value]
