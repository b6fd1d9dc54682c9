"""Fast checks of the Prefect recording switch (the real server killed: test_prefect_lost)."""
from __future__ import annotations

import asyncio

import httpx
import pytest

from agentv.flows.prefect.recording import Recording, answers, api_lost


def _status_error(code: int) -> httpx.HTTPStatusError:
    request = httpx.Request("POST", "http://127.0.0.1:9/api/artifacts/")
    return httpx.HTTPStatusError("boom", request=request,
                                 response=httpx.Response(code, request=request))


def test_what_counts_as_the_api_lost():
    refused = httpx.ConnectError("All connection attempts failed")
    wrapped = RuntimeError("Failed to reach API at http://127.0.0.1:9/api/")
    wrapped.__cause__ = refused
    assert api_lost(refused) and api_lost(wrapped) and api_lost(_status_error(503))
    assert api_lost(RuntimeError("ConnectError: All connection attempts failed"))  # scrubbed
    assert api_lost(ExceptionGroup("tasks", [ValueError("x"), refused]))
    assert not api_lost(_status_error(404)) and not api_lost(ValueError("bad row"))


def test_a_lost_api_stops_recording_for_good_and_a_bug_still_raises(monkeypatch):
    monkeypatch.setenv("PREFECT_API_URL", "http://user:pw@127.0.0.1:9/api")
    recording, sent = Recording(), []

    async def fails() -> None:
        raise httpx.ConnectError("All connection attempts failed")

    async def publish() -> None:
        sent.append(1)

    async def buggy() -> None:
        raise ValueError("not an API problem")

    async def scenario() -> None:
        assert await recording.publish(fails) is None
        await recording.publish(publish)
        with pytest.raises(ValueError):
            await Recording().publish(buggy)
    asyncio.run(scenario())
    assert sent == []
    assert recording.lost == ("no Prefect API answers at http://127.0.0.1:9/api "
                              "(ConnectError: All connection attempts failed)")


def test_stop_cancels_what_is_being_sent():
    recording = Recording()

    async def hangs() -> None:
        await asyncio.sleep(60)

    async def scenario() -> object:
        sending = asyncio.ensure_future(recording.publish(hangs))
        await asyncio.sleep(0.01)
        recording.stop(ConnectionRefusedError("refused"))
        return await asyncio.wait_for(sending, 2)
    assert asyncio.run(scenario()) is None


def test_a_port_nobody_listens_on_does_not_answer():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening: refused
        assert not answers(f"http://127.0.0.1:{port}/api", timeout=1)
