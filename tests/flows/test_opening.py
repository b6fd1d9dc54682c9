"""``open_run``, the one factory of a ``Run``: the results file locked first, a configuration
error before anything runs costs no file, the typed API's prepared plan is taken as it is;
and ``async with run`` closes everything it holds."""
from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentv.flows.opening import open_run
from agentv.providers.errors import ConfigError
from agentv.tasks.plan.plan import EvalOptions
from tests.conftest import EXAMPLE

SUITE = str(EXAMPLE / "evals" / "example.test.yaml")


def _options(out: Path, **more) -> EvalOptions:
    return EvalOptions(paths=[SUITE], out=str(out), **more)


def test_a_run_holds_its_plan_runtimes_and_locked_results_file(tmp_path):
    out = tmp_path / "results.jsonl"
    run = open_run(_options(out))
    try:
        assert [s.path for s in run.plan.suites] == [SUITE] and run.runtimes
        with pytest.raises(ConfigError):  # a second run on the same file fails at once
            open_run(_options(out))
    finally:
        asyncio.run(_enter_and_leave(run))
    assert not out.exists()  # it never began: the file it made goes
    assert not hasattr(run, "plan") and not hasattr(run, "writer")  # nothing kept


async def _enter_and_leave(run) -> None:
    async with run:
        assert run.ledger is not None and run.jobs is not None


def test_a_configuration_error_leaves_no_results_file(tmp_path):
    out = tmp_path / "results.jsonl"
    with pytest.raises(ConfigError):
        open_run(_options(out, target="no-such-target"))
    assert not out.exists()
    open_run(_options(out)).writer.abandon()  # unlocked: a run can take it


def test_a_begun_run_keeps_its_file_and_closes_it(tmp_path):
    out = tmp_path / "results.jsonl"
    run = open_run(_options(out))
    writer = run.writer

    async def begin_only() -> None:
        async with run:
            run.begin()
            run.hand_over()  # the head start starts nothing more
            assert run.head is not None
    asyncio.run(begin_only())
    assert out.exists() and writer.closed


def test_a_prepared_plan_is_taken_as_it_is(tmp_path):
    made = open_run(_options(tmp_path / "a.jsonl"))
    plan, runtimes = made.plan, made.runtimes
    made.writer.abandon()
    run = open_run(plan.options.__class__(paths=[SUITE], out=str(tmp_path / "b.jsonl")),
                   prepared=(plan, runtimes))
    assert run.plan is plan and run.runtimes is runtimes and run.finished is None
    run.writer.abandon()
