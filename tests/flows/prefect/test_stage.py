"""A stage: its name, each run's name filled from the call's arguments, its errors
scrubbed; how a run ends (``Final``)."""
from __future__ import annotations

import asyncio

import pytest

from agentv.flows.prefect.stage import Stage, stage
from agentv.providers import secrets


@stage("run-cases", "run-cases: {label}")
async def batch(label: str, run: object, jobs: list) -> int:
    return len(jobs)


def test_a_stage_names_each_run_from_its_arguments():
    assert isinstance(batch, Stage) and batch.name == "run-cases"
    assert batch.title("a.yaml × t [1/2]", object(), [1]) == "run-cases: a.yaml × t [1/2]"
    assert asyncio.run(batch("x", None, [1, 2])) == 2


def test_a_stage_without_a_run_name_is_named_as_the_stage():
    @stage("summarize")
    async def summarize() -> None:
        return None
    assert summarize.title() == "summarize"


def test_a_stages_error_is_scrubbed_of_the_runs_secrets():
    @stage("boom")
    async def boom() -> None:
        raise RuntimeError("key sk-live-0123456789abcdef leaked")
    registry = secrets.SecretRegistry()
    registry.add(["sk-live-0123456789abcdef"])
    with secrets.scope(registry), pytest.raises(RuntimeError) as caught:
        asyncio.run(boom())
    assert "sk-live-0123456789abcdef" not in str(caught.value)
