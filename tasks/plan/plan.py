"""Load → resolve targets → expand: turn a run's (validated) options into a plan of jobs.

Everything here runs before Prefect is imported, so configuration errors exit 2 in
well under a second with nothing run.
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Callable, Iterator, Sequence

from agentv.providers.base import ConfigError, Target
from agentv.providers.errors import ErrorCollector
from agentv.tasks.load.boundary import allowed_roots
from agentv.tasks.load.config_file import run_config
from agentv.tasks.load.discover import expand_eval_paths, load_env_files
from agentv.tasks.load.files import EvalCase, EvalSuite, load_suite
from agentv.tasks.load.redact import register_dotenv, register_environment
from agentv.tasks.load.selection import TargetFiles, TargetResolver
from agentv.tasks.load.targets import select_target_name
from agentv.tasks.plan.consent import consent_warnings
from agentv.tasks.plan.expand import Job
from agentv.tasks.plan.judges import judge_errors
from agentv.tasks.plan.options import EvalOptions, parse_workers
from agentv.tasks.plan.preflight import target_errors
from agentv.tasks.plan.scale import parse_shard, select_shard

__all__ = ["EvalOptions", "Plan", "build_plan", "file_worker_caps", "parse_workers"]


@dataclass
class Plan:
    options: EvalOptions
    suites: list[EvalSuite]
    targets: dict[str, Target]  # every target used, including judges
    judges: dict[str, str | None]  # target name -> judge target name
    jobs: Sequence[Job]  # a list (build_plan's), or a shard of one
    workers: int
    targets_path: str | None = None
    warnings: list[str] = field(default_factory=list)
    thresholds: dict[str, float] = field(default_factory=dict)  # eval file -> pass threshold
    keep_workspaces: bool = False  # --keep-workspaces, or the project config's
    own_workers: dict[str, int] = field(default_factory=dict)  # eval file -> its workers

    def file_caps(self) -> dict[str, int]:
        """Each eval file's concurrent cases: its own ``execution.workers`` (AgentV 4.x,
        without ``--workers``), else an even share of the run's workers."""
        shared = [s.path for s in self.suites if s.path not in self.own_workers]
        base = self.workers - sum(self.own_workers.values()) if self.own_workers \
            else self.workers
        return {**file_worker_caps(shared, max(1, base)), **self.own_workers}

    def record_thresholds(self) -> dict[str, float]:
        """``thresholds`` keyed by the eval file as records name it (their case_key)."""
        from agentv.tasks.load.targets import repo_relative
        return {repo_relative(path): t for path, t in self.thresholds.items()}


def file_worker_caps(files: list[str], workers: int) -> dict[str, int]:
    """Several eval files share the workers: each gets at least one, the rest evenly."""
    if not files:
        return {}
    base, extra = divmod(workers, len(files))
    return {f: max(1, base + (1 if i < extra else 0)) for i, f in enumerate(files)}


def cap_workers(workers: int, used: list[Target], warn: Callable[[str], None]) -> int:
    """Providers that handle one case at a time (vscode: one VS Code window) lower the
    workers, with a warning saying why."""
    from agentv.providers.registry import provider_class
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


def _tagged(suites: list[EvalSuite], opts: EvalOptions) -> list[EvalSuite]:
    """AgentV's ``--tag`` (every one, on the eval file) and ``--exclude-tag`` (none)."""
    if not opts.tag and not opts.exclude_tag:
        return suites
    wanted, unwanted = set(opts.tag), set(opts.exclude_tag)
    kept = [s for s in suites if wanted <= set(s.tags) and not unwanted & set(s.tags)]
    if not kept:
        flags = " ".join([*(f"--tag {t}" for t in opts.tag),
                          *(f"--exclude-tag {t}" for t in opts.exclude_tag)])
        raise ConfigError(f"no eval file matches {flags} ({len(suites)} file(s) checked: "
                          "tags are the eval file's own)", None,
                          "--tag" if opts.tag else "--exclude-tag")
    return kept


def _select_cases(suites: list[EvalSuite], opts: EvalOptions
                  ) -> Iterator[tuple[EvalSuite, EvalCase]]:
    """(suite, case) to run: with ``--test-id`` those whose id matches any of its globs."""
    patterns = opts.test_id
    for suite in suites:
        for case in suite.cases:
            if patterns and not any(fnmatch.fnmatchcase(case.id, p) for p in patterns):
                continue
            yield suite, case


def _warner(opts: EvalOptions, warn: Callable[[str], None] | None, warnings: list[str]):
    def emit(message: str) -> None:
        warnings.append(message)
        if opts.strict:
            raise ConfigError(f"{message} (an error with --strict)")
        if warn:
            warn(message)
    return emit


def thresholds_of(suites: list[EvalSuite], opts: EvalOptions) -> dict[str, float]:
    """Each eval file's per-test pass threshold: ``--threshold``, else its own
    ``execution.threshold`` (AgentV 4.x)."""
    found = {s.path: opts.threshold if opts.threshold is not None
             else getattr(s, "threshold", None) for s in suites}
    return {path: float(t) for path, t in found.items() if t is not None}


def build_plan(opts: EvalOptions, warn: Callable[[str], None] | None = None) -> Plan:
    """The run's whole pre-case check (``agentv validate`` runs exactly this, as a dry run);
    ``opts`` were checked when they were made.

    Raises ConfigError on the first problem; warnings go to ``warn`` as they are found."""
    shard = parse_shard(opts.shard)
    files = expand_eval_paths(opts.paths)
    register_dotenv(load_env_files(files))
    register_environment()
    warnings: list[str] = []
    emit = _warner(opts, warn, warnings)
    allowed = allowed_roots(opts.allow_path)  # the suites' file boundary beyond their roots
    errors = ErrorCollector()  # every file's errors, then every case's target: all at once
    suites = []
    for f in files:
        with errors.check():
            suites.append(load_suite(f, emit, allowed))
    errors.raise_any()
    for s in suites:
        if not s.has_schema:
            emit(f"{s.path}:1: no $schema (inferred an eval file; add the line "
                 "'$schema: agentv-eval-v2')")
    suites = _tagged(suites, opts)
    for warning in consent_warnings(suites, allowed, opts.allow_path):  # what the sandbox allows
        emit(warning)
    files_of = TargetFiles(opts, emit)
    resolver = TargetResolver(opts, emit)
    jobs: list[Job] = []
    failed: set[tuple[str, str | None]] = set()  # a wrong target name: said once
    for suite, case in _select_cases(suites, opts):
        trials = opts.trials or case.trials or suite.trials or 1
        try:
            keys = _case_targets(suite, case, opts, files_of, resolver)
        except ConfigError as err:
            if (err.message, err.field) not in failed:
                failed.add((err.message, err.field))
                errors.errors.append(err)
            continue
        for key in keys:
            for trial in range(trials):
                jobs.append(Job(case, key, trial))
    errors.errors.extend(judge_errors(jobs, resolver))
    errors.errors.extend(target_errors(jobs, resolver))  # what the run's start would find
    errors.raise_any()
    targets = resolver.resolve_all()
    jobs = list(select_shard(jobs, shard))
    if opts.test_id and not jobs:
        raise ConfigError(f"no eval case matches {' or '.join(map(repr, opts.test_id))}", None,
                          "--test-id")
    first = targets[jobs[0].target] if jobs else None
    workers = opts.workers or (first.workers if first and first.workers else 1)
    own = {} if opts.workers else {s.path: s.workers for s in suites if s.workers}
    workers = cap_workers(workers + sum(own.values()),
                          [targets[n] for n in dict.fromkeys(j.target for j in jobs)], emit)
    own = {path: min(n, workers) for path, n in own.items()}
    _sandbox(opts, suites, allowed, bool(jobs))
    used = [p for p, tf in files_of.files.items() if tf is not None]
    return Plan(opts, suites, targets, resolver.judges(), jobs, workers,
                str(used[0]) if used else None, warnings, thresholds_of(suites, opts),
                keep_workspaces=opts.keep_workspaces or _config_keeps_workspaces(),
                own_workers=own)


def _sandbox(opts: EvalOptions, suites: list[EvalSuite], allowed, runs: bool) -> None:
    """The run's sandbox: on unless ``--no-sandbox``; the suites' roots and the allowed
    folders readable in it; bwrap checked before any case runs (a dry run runs none)."""
    from agentv.providers.process import sandbox
    from agentv.tasks.load.boundary import suite_root
    sandbox.configure(not opts.no_sandbox, [*[suite_root(s.path) for s in suites], *allowed])
    if runs and not opts.dry_run:
        sandbox.require()


def _config_keeps_workspaces() -> bool:
    """AgentV 4.x's ``execution.keep_workspaces: true`` in the project's config file."""
    config = run_config()
    return bool(config and config.execution and config.execution.keep_workspaces)


def _case_targets(suite: EvalSuite, case: EvalCase, opts: EvalOptions, files_of: TargetFiles,
                  resolver: TargetResolver) -> list[str]:
    """The targets one case runs on (their keys): each ``--target`` (the matrix), else the
    case's or its file's own, each resolved in the eval file's own targets file."""
    keys = []
    overrides: list[str | None] = list(opts.target) or [None]
    for cli_name in overrides:
        name = select_target_name(cli_name, case.target, suite.target)
        where = "--target" if cli_name and cli_name != "default" else case.where
        keys.append(resolver.use(name, files_of.for_suite(suite), where))
    return list(dict.fromkeys(keys))
