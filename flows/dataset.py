"""``run_dataset``: a typed dataset run through the same Prefect flow as ``agentv eval``
(result records, Parquet and artifacts included), returning an ``EvalReport``.

The flows layer owns it because it runs the flow; ``agentv`` re-exports it as part of
the typed API.
"""
from __future__ import annotations

import sys
from typing import Any, Callable, Sequence

from agentv.evaluators.report import EvalReport
from agentv.providers import secrets
from agentv.providers.base import Target
from agentv.tasks.api.dataset import Dataset, dataset_suite
from agentv.tasks.results.tally_samples import report_from_records

__all__ = ["evaluate", "run_dataset"]


def _log(message: str) -> None:
    print(message, file=sys.stderr)


def run_dataset(dataset: Dataset, target: str | Target | Callable[[Any], Any], evaluator: Any, *,
                targets: str | None = None, judge: str | Target | None = None,
                workers: int = 1, out: str | None = None, name: str = "dataset",
                shard: str | None = None, task_runner: str | None = None,
                dask_address: str | None = None, prefect_tasks: str = "batch",
                verbose: bool = False, log: Callable[[str], None] = _log) -> EvalReport:
    """Run every sample against ``target`` and score it with ``evaluator``, through the same
    Prefect flow as ``agentv eval`` (result records, Parquet and artifacts included).

    ``target``: a name in targets.yaml (``targets`` is its path; else it is discovered from
    the current directory), a ``Target``, or a Python callable ``input -> output``.
    ``evaluator``: a typed function ``(output, expected[, session]) -> Score``, an agentv
    ``Evaluator``, or a list of them. ``judge`` names the judge target for judge-based
    evaluators (default: the target's ``judge_target``). ``shard="I/N"`` runs only shard I
    of N (as ``--shard``); ``task_runner="dask"`` (``dask_address``) runs the batches on a
    Dask cluster (targets named in targets.yaml are resolved on the workers; a callable is
    shipped to them); ``prefect_tasks="case"`` shows each sample as its own task runs.
    Raises ``ConfigError`` before anything runs when an option, the target or the judge
    is wrong. The run goes to the CLI's long-lived Prefect server (started on first use, as
    ``agentv eval`` does); its link and results path go to ``log`` (stderr by default).
    ``verbose=True`` lets Prefect's own INFO logs reach the console too."""
    from functools import partial

    from agentv.tasks.api.callable_target import CallableProvider, typed_evaluators
    from agentv.tasks.api.typed_targets import run_targets, typed_runtimes
    from agentv.tasks.plan.expand import Job
    from agentv.tasks.plan.plan import EvalOptions, Plan
    from agentv.tasks.plan.scale import parse_shard, select_shard

    with secrets.scope():  # the targets' secrets: the caller's registry, else this run's
        opts = EvalOptions(paths=[], out=out, workers=workers, shard=shard,
                           task_runner=task_runner, dask_address=dask_address,
                           prefect_tasks=prefect_tasks, verbose=verbose)  # checked as made
        used, main, judge_name = run_targets(target, judge, targets, log)
        provider = (CallableProvider(used[main], target, {s.id: s.input for s in dataset})
                    if used[main].provider == "python" and callable(target) else None)
        expected = {s.id: s.expected for s in dataset}
        suite = dataset_suite(dataset, name, typed_evaluators(evaluator, expected.__getitem__,
                                                              provider))
        opts.paths = [suite.path]
        jobs = select_shard([Job(c, main) for c in suite.cases], parse_shard(shard))
        plan = Plan(opts, [suite], used, {main: judge_name}, jobs, int(opts.workers or 1),
                    keep_workspaces=opts.keep_workspaces)
        runtimes = typed_runtimes(used, main, judge_name, provider, jobs, plan.workers)
        specs = (target if provider is None else None, judge, targets, provider, plan.workers)
        records: list[dict[str, Any]] = []
        _point_at_server(verbose, log)  # Prefect reads its settings when first imported
        from agentv.flows.launch import execute
        from agentv.flows.opening import open_run
        from agentv.flows.runners.distributed import ShippedJobs
        run = open_run(opts, prepared=(plan, runtimes), on_record=records.append, log=log,
                       remote=lambda part: ShippedJobs(part, partial(_worker_runtimes, *specs,
                                                                     part)))
        outcome = execute(run, log)
        for label, key in (("prefect flow run", "flow_run_url"), ("results", "results")):
            if outcome.get(key):
                log(f"agentv: {label}: {outcome[key]}")
        return report_from_records(records, [j.case.id for j in jobs], outcome.get("results"))


def _point_at_server(verbose: bool, log: Callable[[str], None]) -> None:
    """Before Prefect is imported: its API is agentv's long-lived server (not a temporary
    one per call) and its console logs are quiet unless ``verbose``."""
    from agentv.flows.prefect.preload import quiet_prefect_console
    from agentv.flows.prefect.server import ensure_api
    quiet_prefect_console(verbose)
    ensure_api(log)


def _worker_runtimes(target: Any, judge: Any, targets: str | None, provider: Any,
                     workers: int, jobs: Sequence[Any]) -> dict[str, Any]:
    """On a Dask worker: targets named in targets.yaml are resolved there (its environment
    holds the keys; none travel with the batch)."""
    from agentv.tasks.api.typed_targets import run_targets, typed_runtimes
    used, main, judge_name = run_targets(provider.target if provider else target, judge,
                                         targets, _log)
    return typed_runtimes(used, main, judge_name, provider, jobs, workers)


evaluate = run_dataset  # seed 002 spelling
