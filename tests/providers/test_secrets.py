"""The secret registry is owned, not global: each run or client has its own
``SecretRegistry``; the code of a run (its asyncio tasks, ``to_thread`` calls, a Prefect task
run) scrubs with the run's, another run's values never mask this one's bytes, and sinks that
outlive a context (log handlers, stdout) scrub with the registry they were installed with."""
from __future__ import annotations

import asyncio
import io
import logging
import threading

from agentv.providers import secrets
from agentv.providers.secrets import SecretRegistry
from agentv.tasks.load.redact import RedactingFilter, ScrubbingStream


def test_each_registry_masks_only_its_own_values():
    first, second = SecretRegistry(), SecretRegistry()
    with secrets.scope(first):
        secrets.add(["sk-first-run-secret"])
        with secrets.scope(second):
            secrets.add(["sk-second-run-secret"])
            assert secrets.scrub("sk-first-run-secret sk-second-run-secret") == \
                "sk-first-run-secret ***"
        assert secrets.scrub("sk-first-run-secret sk-second-run-secret") == \
            "*** sk-second-run-secret"
        with secrets.scope() as same:  # no registry given: this context's
            assert same is first
    assert first.values != second.values and "sk-first-run-secret" in first.values


def test_a_runs_tasks_and_threads_scrub_with_its_registry():
    run = SecretRegistry()

    async def scrubbed(text: str) -> str:
        return secrets.scrub(text)

    async def case() -> list[str]:
        secrets.add(["sk-found-while-loading"])  # registered inside a task of the run
        in_thread = await asyncio.to_thread(secrets.cut, "key sk-found-while-loading", 100)
        in_task = await asyncio.create_task(scrubbed("sk-found-while-loading"))
        return [in_thread, in_task]
    with secrets.scope(run):
        assert asyncio.run(case()) == ["key ***", "***"]
    assert "sk-found-while-loading" in run.values


def test_sinks_scrub_with_their_registry_from_any_thread():
    run = SecretRegistry()
    run.add(["sk-installed-with-the-run"])
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(RedactingFilter(run))
    logger = logging.getLogger("agentv.test-secrets")
    logger.addHandler(handler)
    stream = ScrubbingStream(io.StringIO(), run)
    try:
        def elsewhere() -> None:  # a thread started without the run's context
            assert secrets.current() is None
            logger.warning("key %s", "sk-installed-with-the-run")
            stream.write("key sk-installed-with-the-run\n")
        thread = threading.Thread(target=elsewhere)
        thread.start()
        thread.join()
    finally:
        logger.removeHandler(handler)
    assert out.getvalue() == "key ***\n"
    assert stream._stream.getvalue() == "key ***\n"


def test_dotenv_names_belong_to_the_registry_and_merge():
    loaded, batch = SecretRegistry(), SecretRegistry()
    loaded.add(["dotenv-value-1234"])
    loaded.mark_dotenv(["FROM_DOTENV"])
    batch.merge(loaded)
    assert batch.dotenv_only == {"FROM_DOTENV"} and batch.scrub("dotenv-value-1234") == "***"
    batch.clear()
    assert batch.values == () and batch.dotenv_only == frozenset()
