"""``run_dataset``: a typed dataset run through the same Prefect flow as ``agentv eval``
(result records, Parquet and artifacts included), returning an ``EvalReport``.

The flows layer owns it because it runs the flow; ``tasks.evals`` re-exports it as part of
the typed API.
"""
from __future__ import annotations

import sys
from typing import Any, Callable

from evaluators.report import EvalReport, report_from_records
from providers.base import Target
from tasks.dataset import Dataset, dataset_suite

__all__ = ["evaluate", "run_dataset"]


def _log(message: str) -> None:
    print(message, file=sys.stderr)


def run_dataset(dataset: Dataset, target: str | Target | Callable[[Any], Any], evaluator: Any, *,
                targets: str | None = None, judge: str | Target | None = None,
                workers: int = 1, out: str | None = None, name: str = "dataset",
                log: Callable[[str], None] = _log) -> EvalReport:
    """Run every sample against ``target`` and score it with ``evaluator``, through the same
    Prefect flow as ``agentv eval`` (result records, Parquet and artifacts included).

    ``target``: a name in targets.yaml (``targets`` is its path; else it is discovered from
    the current directory), a ``Target``, or a Python callable ``input -> output``.
    ``evaluator``: a typed function ``(output, expected[, session]) -> Score``, an agentv
    ``Evaluator``, or a list of them. ``judge`` names the judge target for judge-based
    evaluators (default: the target's ``judge_target``). Raises ``ConfigError`` before
    anything runs when the target or judge cannot be resolved."""
    from tasks.callable_target import CallableProvider, typed_evaluators
    from tasks.expand import Job
    from tasks.plan import EvalOptions, Plan, parse_workers
    from tasks.runtime import build_runtimes
    from tasks.typed_targets import callable_runtime, run_targets

    used, main, judge_name = run_targets(target, judge, targets, log)
    provider = (CallableProvider(used[main], target, {s.id: s.input for s in dataset})
                if used[main].provider == "python" and callable(target) else None)
    expected = {s.id: s.expected for s in dataset}
    suite = dataset_suite(dataset, name, typed_evaluators(evaluator, expected.__getitem__,
                                                          provider))
    n_workers = parse_workers(workers)
    opts = EvalOptions(paths=[suite.path], out=out, workers=n_workers)
    plan = Plan(opts, [suite], used, {main: judge_name}, [Job(c, main) for c in suite.cases],
                n_workers)
    runtimes = (callable_runtime(provider, used.get(judge_name or "")) if provider
                else build_runtimes(plan))
    records: list[dict[str, Any]] = []
    from flows.launch import run_plan  # Prefect loads only here
    outcome = run_plan(plan, runtimes, on_record=records.append, log=log)
    return report_from_records(records, [s.id for s in dataset], outcome.get("results"))


evaluate = run_dataset  # seed 002 spelling
