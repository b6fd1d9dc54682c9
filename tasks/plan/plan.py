"""Load → resolve targets → expand: turn CLI options into a validated plan of jobs.

Everything here runs before Prefect is imported, so configuration errors exit 2 in
well under a second with nothing run.
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Any, Callable

from providers.base import ConfigError, Target
from tasks.load.discover import expand_eval_paths, load_env_files
from tasks.plan.expand import Job
from tasks.load.files import MAX_TRIALS, EvalSuite, load_suite
from tasks.plan.outputs import check_outputs
from tasks.load.redact import register_dotenv, register_environment
from tasks.plan.scale import check_prefect_tasks, check_task_runner, parse_shard, select_shard
from tasks.load.selection import TargetFiles, TargetResolver
from tasks.load.targets import select_target_name

MAX_WORKERS = 50
MAX_DRY_RUN_DELAY_MS = 600_000.0


@dataclass
class EvalOptions:
    paths: list[str]
    targets: str | None = None
    target: str | None = None
    workers: int | str | None = None  # --workers' text until check_options parses it
    out: str | None = None
    output_format: str = ""  # "": from --out's extension, else jsonl
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
    task_runner: str | None = None  # default | dask (tasks/plan/scale.py)
    dask_address: str | None = None
    shard: str | None = None  # I/N: run only this shard of the jobs
    prefect_tasks: str = "batch"  # batch | case: Prefect task runs per batch or per case
    fail_under: float | None = None  # quality gates (tasks/load/gates.py)
    min_pass_rate: float | None = None
    fail_on_error: bool = False
    agent_timeout: float | None = None  # seconds; overrides agent targets' timeout_seconds
    strict: bool = False  # warnings (unknown keys, no $schema) are errors
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.output_format:  # from --out's extension, else jsonl
            from tasks.plan.outputs import implied_format
            self.output_format = implied_format(self.out) or "jsonl"


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


def _select_cases(suites: list[EvalSuite], opts: EvalOptions):
    """(suite, case) to run: a loaded file's cases as ``CaseRef``s (nothing is built)."""
    for suite in suites:
        for case in getattr(suite.cases, "refs", suite.cases):
            if opts.eval_id and not fnmatch.fnmatchcase(case.id, opts.eval_id):
                continue
            yield suite, case


def check_options(opts: EvalOptions) -> None:
    """Flags alone (no file read): bounds, formats, output paths."""
    check_outputs(opts)
    if opts.workers is not None:
        opts.workers = parse_workers(opts.workers)
    trials = opts.trials
    if trials is not None and (isinstance(trials, bool) or not isinstance(trials, int)
                               or not 1 <= trials <= MAX_TRIALS):
        raise ConfigError(f"must be a whole number from 1 to {MAX_TRIALS}, got {opts.trials!r}",
                          None, "--trials")
    for flag in ("dry_run_delay", "dry_run_delay_min", "dry_run_delay_max"):
        _bounded(getattr(opts, flag), f"--{flag.replace('_', '-')}", MAX_DRY_RUN_DELAY_MS, "ms")
    _bounded(opts.agent_timeout, "--agent-timeout", 7 * 24 * 3600.0, "seconds", positive=True)
    if opts.max_retries is not None and not 0 <= opts.max_retries <= 100:
        raise ConfigError(f"must be from 0 to 100, got {opts.max_retries}", None, "--max-retries")
    opts.task_runner = check_task_runner(opts.task_runner, opts.dask_address)
    opts.prefect_tasks = check_prefect_tasks(opts.prefect_tasks, opts.task_runner)


def _bounded(value: float | None, flag: str, top: float, unit: str, positive: bool = False):
    import math
    if value is None:
        return
    low_ok = value > 0 if positive else value >= 0
    if not math.isfinite(value) or not low_ok or value > top:
        raise ConfigError(f"must be a finite number of {unit} from {'above ' if positive else ''}"
                          f"0 to {top:g}, got {value!r}", None, flag)


def build_plan(opts: EvalOptions, warn: Callable[[str], None] | None = None) -> Plan:
    """The run's whole pre-case check (``agentv validate`` runs exactly this, as a dry run).

    Raises ConfigError on the first problem; warnings go to ``warn`` as they are found."""
    check_options(opts)
    shard = parse_shard(opts.shard)
    files = expand_eval_paths(opts.paths)
    register_dotenv(load_env_files(files))
    register_environment()
    warnings: list[str] = []

    def emit(message: str) -> None:
        warnings.append(message)
        if opts.strict:
            raise ConfigError(f"{message} (an error with --strict)")
        if warn:
            warn(message)
    suites = [load_suite(f, emit) for f in files]
    for s in suites:
        if not s.has_schema:
            emit(f"{s.path}:1: no $schema (inferred an eval file; add the line "
                 "'$schema: agentv-eval-v2')")
    files_of = TargetFiles(opts, emit)
    resolver = TargetResolver(opts, emit)
    jobs: list[Job] = []
    for suite, case in _select_cases(suites, opts):
        name = select_target_name(opts.target, case.target, suite.target)
        where = "--target" if opts.target and opts.target != "default" else case.where
        resolver.use(name, files_of.for_suite(suite), where)
        trials = opts.trials or case.trials or suite.trials or 1
        jobs.extend(Job(case, name, t) for t in range(trials))
    targets = resolver.resolve_all()
    judges = {name: t.judge_target for name, t in targets.items()}
    jobs = select_shard(jobs, shard)
    if opts.eval_id and not jobs:
        raise ConfigError(f"no eval case matches --eval-id {opts.eval_id!r}", None, "--eval-id")
    first = targets[jobs[0].target] if jobs else None
    requested = parse_workers(opts.workers) if opts.workers is not None else None
    workers = requested or (first.workers if first and first.workers else 1)
    workers = cap_workers(workers, [targets[n] for n in dict.fromkeys(j.target for j in jobs)],
                          emit)
    used = [p for p, tf in files_of.files.items() if tf is not None]
    return Plan(opts, suites, targets, judges, jobs, workers,
                str(used[0]) if used else None, warnings)
