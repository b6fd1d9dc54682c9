"""The run's notes on its targets' limits (``throttling``): a throttled window, and the time
a target's calls waited on its shared limit."""
from __future__ import annotations

from types import SimpleNamespace

from agentv.providers.limits import AimdWindow, LimitedProvider, LocalSlots
from agentv.tasks.engine.runtime import throttling


class Quiet:
    name, kind = "prod", "openai"


def test_a_target_that_waited_on_its_shared_limit_gets_a_note():
    shared = LimitedProvider(Quiet(), AimdWindow("prod", 3), LocalSlots(3), "prod-limit", 3)
    alone = LimitedProvider(Quiet(), AimdWindow("dev", 3))
    for seconds in (0.0, 1.5, 2.5):
        shared.waits.add(seconds)
        alone.waits.add(seconds)  # no shared limit: no note
    runtimes = {"prod": SimpleNamespace(provider=SimpleNamespace(provider=shared)),
                "dev": SimpleNamespace(provider=alone)}
    assert throttling(runtimes) == [
        "prod waited on shared limit prod-limit (3 slot(s)): 4.0 s in all, "
        "2 of 3 call(s) waited, longest 2.5 s"]


def test_a_shared_limit_no_call_waited_on_says_nothing():
    shared = LimitedProvider(Quiet(), AimdWindow("prod", 3), LocalSlots(3), "prod-limit", 3)
    shared.waits.add(0.001)
    assert throttling({"prod": SimpleNamespace(provider=shared)}) == []
