"""A run's plans on its Dask workers, owned by the run (imported on Dask paths only).

``RunPlans`` is a worker plugin registered for one run (``register_plans``) and removed when
the run's session closes (``unregister_plans``): on each worker it holds the plan the worker
rebuilt from the run's options and the secrets that loading found, so every batch of the
run on that worker reuses them (the suites load once per worker and run, not once per
batch) and scrubs with them. Nothing stays on a worker after its run.
"""
from __future__ import annotations

import json
import threading
import uuid
from typing import Any

from distributed import get_worker
from distributed.diagnostics.plugin import WorkerPlugin

from agentv.providers import secrets
from agentv.providers.secrets import SecretRegistry
from agentv.tasks.plan.plan import EvalOptions, Plan, build_plan


class RunPlans(WorkerPlugin):
    """One run's plans on one worker, by the options they were built from."""

    def __init__(self, name: str):
        self.name = name
        self.plans: dict[str, tuple[Plan, SecretRegistry]] = {}
        self._lock = threading.Lock()  # batches of the run share one build

    def __getstate__(self) -> dict[str, Any]:
        return {"name": self.name}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["name"])  # type: ignore[misc]

    def plan(self, options_json: str) -> tuple[Plan, SecretRegistry]:
        with self._lock:
            held = self.plans.get(options_json)
            if held is None:
                with secrets.scope(SecretRegistry()) as found:
                    plan = build_plan(EvalOptions(**json.loads(options_json)))
                held = self.plans[options_json] = (plan, found)
            return held

    def teardown(self, worker: Any) -> None:
        self.plans.clear()


def register_plans(client: Any) -> str:
    """Give every worker of ``client``'s cluster the run's plan cache; its name."""
    name = f"agentv-plans-{uuid.uuid4().hex}"
    client.register_plugin(RunPlans(name), name=name)
    return name


def unregister_plans(client: Any, name: str) -> None:
    try:
        client.unregister_worker_plugin(name)
    except Exception:  # noqa: BLE001 - the cluster is gone already: so are its plans
        pass


def worker_plan(name: str, options_json: str) -> tuple[Plan, SecretRegistry]:
    """On a worker: the run's plan and the secrets its loading found."""
    plans: RunPlans = get_worker().plugins[name]  # type: ignore[assignment]
    return plans.plan(options_json)
