"""Load → resolve targets → expand: turn CLI options into a validated plan of jobs.

Everything here runs before Prefect is imported, so configuration errors exit 2 in
well under a second with nothing run.
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from providers.base import ConfigError, Target
from tasks.discover import expand_eval_paths, load_env_files
from tasks.expand import Job
from tasks.files import EvalSuite, load_suite
from tasks.redact import (register, register_dotenv, register_environment,
                          register_targets_file, secret_values)
from tasks.scale import check_task_runner, parse_shard, select_shard
from tasks.write import check_format
from tasks.targets import TargetsFile, discover_targets, load_targets, select_target_name

MAX_WORKERS = 50


@dataclass
class EvalOptions:
    paths: list[str]
    targets: str | None = None
    target: str | None = None
    workers: int | None = None
    out: str | None = None
    output_format: str = "jsonl"
    dry_run: bool = False
    dry_run_delay: float | None = None
    dry_run_delay_min: float | None = None
    dry_run_delay_max: float | None = None
    eval_id: str | None = None
    verbose: bool = False
    dump_prompts: str | None = None
    dump_traces: str | None = None
    include_trace: bool = False
    cache: bool = False
    trials: int | None = None
    max_retries: int | None = None
    resume: str | None = None
    junit: str | None = None  # also write JUnit XML here
    task_runner: str | None = None  # default | dask (tasks/scale.py)
    dask_address: str | None = None
    shard: str | None = None  # I/N: run only this shard of the jobs
    fail_under: float | None = None  # quality gates (tasks/gates.py)
    min_pass_rate: float | None = None
    fail_on_error: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Plan:
    options: EvalOptions
    suites: list[EvalSuite]
    targets: dict[str, Target]  # every target used, including judges
    judges: dict[str, str | None]  # target name -> judge target name
    jobs: list[Job]
    workers: int
    targets_path: str | None = None
    warnings: list[str] = field(default_factory=list)


def parse_workers(value: Any) -> int:
    try:
        n = int(str(value))
    except ValueError:
        raise ConfigError(f"must be a whole number from 1 to {MAX_WORKERS}, got {value!r}",
                          None, "--workers") from None
    if not 1 <= n <= MAX_WORKERS:
        raise ConfigError(f"must be from 1 to {MAX_WORKERS}, got {n}", None, "--workers")
    return n


def file_worker_caps(files: list[str], workers: int) -> dict[str, int]:
    """Several eval files share the workers: each gets at least one, the rest evenly."""
    if not files:
        return {}
    base, extra = divmod(workers, len(files))
    return {f: max(1, base + (1 if i < extra else 0)) for i, f in enumerate(files)}


def cap_workers(workers: int, used: list[Target], warn: Callable[[str], None]) -> int:
    """Providers that handle one case at a time (vscode: one VS Code window) lower the
    workers, with a warning saying why."""
    from providers.registry import provider_class
    for target in used:
        try:
            cap = provider_class(target.provider, target.where).max_workers
        except ConfigError:
            continue  # an unavailable provider is reported by the preflight
        if cap and workers > cap:
            warn(f"{target.where}: target '{target.name}' ({target.provider}) runs at most "
                 f"{cap} case(s) at a time; workers lowered from {workers} to {cap}")
            workers = cap
    return workers


def _mock_target(name: str, opts: EvalOptions, base: Target | None) -> Target:
    settings: dict[str, Any] = {}
    if opts.dry_run_delay is not None:
        settings["delayMs"] = opts.dry_run_delay
    elif opts.dry_run_delay_min is not None or opts.dry_run_delay_max is not None:
        lo = opts.dry_run_delay_min or 0.0
        settings.update(delayMinMs=lo, delayMaxMs=opts.dry_run_delay_max or lo)
    return Target(name=name, provider="mock", settings=settings,
                  judge_target=base.judge_target if base else None,
                  workers=base.workers if base else None,
                  where=base.where if base else "--dry-run")


def _load_targets_file(opts: EvalOptions, files: list[Path], warn: Callable[[str], None]):
    path = discover_targets(opts.targets, files)
    if path is None:
        return None
    tf = load_targets(path, warn)
    register_targets_file(tf.entries.values())  # every target, used or not
    if not tf.has_schema:
        warn(f"{path}:1: no $schema (add the line '$schema: agentv-targets-v2')")
    return tf


def _resolve(name: str, tf: TargetsFile | None, opts: EvalOptions, where: str) -> Target:
    if tf is None:
        if opts.dry_run:
            return _mock_target(name, opts, None)
        raise ConfigError("no targets.yaml found (looked beside the eval file, upward to the "
                          "repo root, and in the current directory; or pass --targets)", where,
                          "target")
    if name not in tf.entries:
        raise ConfigError(f"unknown target '{name}' (known: {', '.join(tf.names()) or 'none'})",
                          where, "target")
    if opts.dry_run:
        entry = tf.entries[name]
        return _mock_target(name, opts, Target(name=name, provider="mock",
                                               judge_target=entry.get("judge_target"),
                                               workers=entry.get("workers"),
                                               where=tf.where(name)))
    target = tf.resolve(name)
    register(secret_values([target]))
    return target


def _select_cases(suites: list[EvalSuite], opts: EvalOptions):
    for suite in suites:
        for case in suite.cases:
            if opts.eval_id and not fnmatch.fnmatchcase(case.id, opts.eval_id):
                continue
            yield suite, case


def build_plan(opts: EvalOptions, warn: Callable[[str], None] | None = None) -> Plan:
    """Raises ConfigError on the first problem; warnings go to ``warn`` as they are found."""
    check_format(opts.output_format)
    if opts.workers is not None:
        opts.workers = parse_workers(opts.workers)
    if opts.trials is not None and (not isinstance(opts.trials, int) or opts.trials < 1):
        raise ConfigError(f"must be a whole number >= 1, got {opts.trials!r}", None, "--trials")
    opts.task_runner = check_task_runner(opts.task_runner, opts.dask_address)
    shard = parse_shard(opts.shard)
    files = expand_eval_paths(opts.paths)
    register_dotenv(load_env_files(files))
    register_environment()
    warnings: list[str] = []

    def emit(message: str) -> None:
        warnings.append(message)
        if warn:
            warn(message)
    suites = [load_suite(f, emit) for f in files]
    for s in suites:
        if not s.has_schema:
            emit(f"{s.path}:1: no $schema (add the line '$schema: agentv-eval-v2')")
    tf = _load_targets_file(opts, files, emit)
    targets: dict[str, Target] = {}
    judges: dict[str, str | None] = {}
    jobs: list[Job] = []
    for suite, case in _select_cases(suites, opts):
        name = select_target_name(opts.target, case.target, suite.target)
        if name not in targets:
            where = "--target" if opts.target and opts.target != "default" else case.where
            targets[name] = _resolve(name, tf, opts, where)
            judge = targets[name].judge_target
            judges[name] = judge
            if judge and judge not in targets:
                targets[judge] = _resolve(judge, tf, opts, targets[name].where)
        trials = opts.trials or case.trials or suite.trials or 1
        jobs.extend(Job(case, name, t) for t in range(trials))
    jobs = select_shard(jobs, shard)
    if opts.eval_id and not jobs:
        raise ConfigError(f"no eval case matches --eval-id {opts.eval_id!r}", None, "--eval-id")
    first = targets[jobs[0].target] if jobs else None
    workers = opts.workers or (first.workers if first and first.workers else 1)
    workers = cap_workers(workers, [targets[n] for n in dict.fromkeys(j.target for j in jobs)],
                          emit)
    return Plan(opts, suites, targets, judges, jobs, workers,
                str(tf.path) if tf else None, warnings)
