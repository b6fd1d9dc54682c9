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


def test_any_run_of_12_characters_of_a_secret_is_masked():
    from agentv.providers.secrets import SecretRegistry
    r = SecretRegistry()
    r.add(["abcdefghijklmnopqrstuvwxyz"])
    assert r.scrub("a 20-of-26 echo: ghijklmnopqrstuvwxyz0") == "a 20-of-26 echo: ***0"
    assert r.scrub("12: bcdefghijklm!") == "12: ***!"
    assert r.scrub("11: abcdefghijk") == "11: abcdefghijk"  # shorter runs are ordinary text
    assert r.scrub("x abcdefghijklmnopqrstuvwxyz y") == "x *** y"


def test_basic_auth_from_url_userinfo_is_masked_whole_and_in_part():
    import base64

    from agentv.providers.secret_fields import url_secrets
    from agentv.providers.secrets import SecretRegistry
    r = SecretRegistry()
    r.add(url_secrets("http://u:Passw0rd-Long-1@host/v1")[0])
    token = base64.b64encode(b"u:Passw0rd-Long-1").decode()
    echoed = f"Authorization: Basic {token}; part {token[2:16]}"
    assert token[2:16] not in r.scrub(echoed) and "Basic ***" not in r.scrub(echoed)
    assert r.scrub(echoed) == "Authorization: ***; part ***"
