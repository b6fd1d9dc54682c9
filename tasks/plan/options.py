"""A run's options: one typed object, every flag checked once, when it is made.

``EvalOptions(...)`` — built from the ``agentv eval`` flags, the typed API's or a
deployment's settings — validates and normalizes itself before anything else happens:
bounds, formats, output paths, the results file a run continues, scale-out, quality gates
and AgentV's run options (``--test-id``, a repeated ``--target``, ``--threshold``,
``--budget-usd``, ``--retry-errors``, ``--rerun-failed``, ``--tag``). A bad value is a
``ConfigError`` naming its flag (``error: --workers: must be from 1 to 50, got 0``, exit 2)
before any eval file is read, nothing is opened and no case runs. Everything after reads
the options as they are; nothing checks them again. Rebuilt from its own fields (the flow's
copy, a Dask worker's) it validates to the same values.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from agentv.providers.errors import ConfigError
from agentv.tasks.load.boundary import check_allow_paths
from agentv.tasks.load.files import MAX_TRIALS
from agentv.tasks.load.gates import Gates, options_gates
from agentv.tasks.plan.outputs import check_dir_target, check_file_target, output_format
from agentv.tasks.plan.resume import resolve_resume_path
from agentv.tasks.plan.scale import check_prefect_tasks, check_task_runner, parse_shard

MAX_WORKERS = 50  # AgentV 4.42.4's bound of a run's concurrent tests
MAX_CLUSTER_WORKERS = 1000  # --task-runner dask: --workers bounds the whole cluster
MAX_DRY_RUN_DELAY_MS = 600_000.0
CONTINUE_FLAGS = ("resume", "rerun_failed", "retry_errors")


@dataclass
class EvalOptions:
    paths: list[str]
    targets: str | None = None
    target: list[str] = field(default_factory=list)  # repeatable: the case × target matrix
    workers: int | None = None  # text (the command line's) is parsed, as every number
    out: str | None = None
    output: str | None = None  # AgentV 4.x's run folder: out = DIR/index.jsonl, and artifacts
    otel_file: str | None = None  # AgentV 4.x's --otel-file: OTLP JSON of each test's spans
    output_format: str = ""  # "": from --out's (or the continued file's) extension, else jsonl
    dry_run: bool = False
    dry_run_delay: float | None = None
    dry_run_delay_min: float | None = None
    dry_run_delay_max: float | None = None
    test_id: list[str] = field(default_factory=list)  # globs, any may match
    eval_id: str | None = None  # the older spelling of one --test-id (folded into test_id)
    verbose: bool = False
    dump_prompts: str | None = None
    dump_traces: str | None = None
    include_trace: bool = False
    cache: bool = False
    trials: int | None = None
    max_retries: int | None = None
    resume: str | None = None  # continue this results file (its not-run cases too)
    rerun_failed: str | None = None  # continue it, running its errors and failures again
    retry_errors: str | None = None  # a new results file: its records, errors run again
    junit: str | None = None
    task_runner: str | None = None  # default | dask (tasks/plan/scale.py)
    dask_address: str | None = None
    shard: str | None = None  # I/N: run only this shard of the jobs
    prefect_tasks: str = "batch"  # batch | case
    fail_under: float | None = None  # quality gates (tasks/load/gates.py)
    min_pass_rate: float | None = None
    fail_on_error: bool | None = None  # None: case errors fail the run
    threshold: float | None = None  # AgentV's per-test pass threshold (0-1)
    budget_usd: float | None = None  # stop dispatching once the run spent this much
    tag: list[str] = field(default_factory=list)  # only eval files with all these tags
    exclude_tag: list[str] = field(default_factory=list)  # no eval file with any of these
    agent_timeout: float | None = None  # seconds; overrides agent targets' timeout_seconds
    keep_workspaces: bool = False  # keep passing agent cases' workspaces too (failed: kept)
    strict: bool = False  # warnings (unknown keys, no $schema) are errors
    allow_path: list[str] = field(default_factory=list)  # folders beyond the suites' roots
    grader_target: str | None = None  # judge of every target (AgentV's --grader-target)
    no_sandbox: bool = False  # run case processes without bubblewrap (providers.process.sandbox)
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        validate(self)

    @property
    def gates(self) -> Gates:
        """The run-wide quality gates (``--fail-under`` …)."""
        return options_gates(self)

    @property
    def continued(self) -> str | None:
        """The results file this run appends to (``--resume`` / ``--rerun-failed``)."""
        return self.resume or self.rerun_failed


def validate(o: EvalOptions) -> None:
    """Check and normalize every option; the first bad one raises ``ConfigError``."""
    o.paths = [str(p) for p in o.paths]
    o.target = _texts(o.target, "--target")
    o.test_id = _texts([*_texts(o.test_id, "--test-id"), *_texts(o.eval_id, "--eval-id")],
                       "--test-id")
    o.eval_id = None
    o.tag, o.exclude_tag = _texts(o.tag, "--tag"), _texts(o.exclude_tag, "--exclude-tag")
    o.allow_path = check_allow_paths(o.allow_path)
    _outputs(o)
    _numbers(o)
    o.task_runner = check_task_runner(o.task_runner, o.dask_address)
    o.prefect_tasks = check_prefect_tasks(o.prefect_tasks, o.task_runner)
    parse_shard(o.shard)
    options_gates(o)
    if o.budget_usd is not None and o.task_runner == "dask":
        raise ConfigError("is counted in this process; it does not combine with --task-runner "
                          "dask", None, "--budget-usd")


def _texts(value: Any, flag: str) -> list[str]:
    """A repeatable text option: None, one text or a list → a list without repeats."""
    items = [] if value is None else [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(v, str) for v in items):
        raise ConfigError(f"must be text (or a list of texts), got {value!r}", None, flag)
    if any(not v.strip() for v in items):
        raise ConfigError("must not be empty", None, flag)
    return list(dict.fromkeys(v.strip() for v in items))


def _outputs(o: EvalOptions) -> None:
    """Formats and every path the run reads to continue or writes, checked up front."""
    given = [f for f in CONTINUE_FLAGS if getattr(o, f)]
    if len(given) > 1:
        names = [f"--{f.replace('_', '-')}" for f in given]
        raise ConfigError(f"cannot be combined with {names[0]} (pick one way to continue a "
                          "run)", None, names[1])
    _run_folder(o)
    explicit = o.output_format or None
    if o.continued:
        flag = "--resume" if o.resume else "--rerun-failed"
        path = resolve_resume_path(o.continued, output_format(explicit, None), flag)
        if o.out and o.out != str(path):
            raise ConfigError(f"{flag} continues in its own results file {path}; drop --out",
                              o.out, "--out")
        o.output_format = output_format(explicit, str(path), flag)
        o.out = str(path)
        setattr(o, "resume" if o.resume else "rerun_failed", str(path))
    else:
        o.output_format = output_format(explicit, o.out)
        check_file_target(o.out, "--out")
    if o.retry_errors:
        source = resolve_resume_path(o.retry_errors, o.output_format, "--retry-errors")
        if o.out and _same_file(o.out, str(source)):
            raise ConfigError("the retry writes a new results file: give --out another path "
                              "than the --retry-errors file", o.out, "--out")
        o.retry_errors = str(source)
    check_file_target(o.junit, "--junit")
    check_dir_target(o.dump_prompts, "--dump-prompts")
    check_dir_target(o.dump_traces, "--dump-traces")


def _run_folder(o: EvalOptions) -> None:
    """``--output DIR``: the results go to DIR/index.jsonl (AgentV 4.42.4's run folder);
    ``--resume`` / ``--rerun-failed`` continue that folder, ``--retry-errors`` fills it."""
    if not o.output:
        return
    from pathlib import Path
    index = str(Path(o.output) / "index.jsonl")
    for flag in ("resume", "rerun_failed"):
        value = getattr(o, flag)
        if value == "latest" or (value and _same_file(value, index)):
            setattr(o, flag, index)  # as AgentV: the flag continues the --output folder
        elif value:
            raise ConfigError(f"continues its own folder's results ({index}); drop "
                              f"--{flag.replace('_', '-')} {value} or --output", o.output,
                              "--output")
    if o.out and o.out != index:
        raise ConfigError("writes its own results file (DIR/index.jsonl); drop --out",
                          o.output, "--output")
    if (o.output_format or "jsonl") != "jsonl":
        raise ConfigError("a run folder's results are JSONL (index.jsonl)", o.output_format,
                          "--output-format")
    check_dir_target(o.output, "--output")
    o.out, o.output_format = index, "jsonl"


def _same_file(a: str, b: str) -> bool:
    from pathlib import Path
    return Path(a).resolve() == Path(b).resolve()


def parse_workers(value: Any, most: int = MAX_WORKERS) -> int:
    try:
        n = int(str(value))
    except ValueError:
        raise ConfigError(f"must be a whole number from 1 to {most}, got {value!r}",
                          None, "--workers") from None
    if not 1 <= n <= most:
        raise ConfigError(f"must be from 1 to {most}, got {n}", None, "--workers")
    return n


NUMBERS = {"trials": int, "max_retries": int, "dry_run_delay": float,
           "dry_run_delay_min": float, "dry_run_delay_max": float, "agent_timeout": float,
           "fail_under": float, "min_pass_rate": float, "threshold": float, "budget_usd": float}


def _from_text(o: EvalOptions) -> None:
    """Numbers given as text (the command line's flags) parsed, naming the flag if not."""
    for name, kind in NUMBERS.items():
        value = getattr(o, name)
        if not isinstance(value, str):
            continue
        try:
            setattr(o, name, kind(value.strip()))
        except ValueError:
            what = "a whole number" if kind is int else "a number"
            raise ConfigError(f"must be {what}, got {value!r}", None,
                              f"--{name.replace('_', '-')}") from None


def _numbers(o: EvalOptions) -> None:
    _from_text(o)
    if o.workers is not None:
        cluster = str(o.task_runner or "").strip() == "dask"
        o.workers = parse_workers(o.workers, MAX_CLUSTER_WORKERS if cluster else MAX_WORKERS)
    trials = o.trials
    if trials is not None and (isinstance(trials, bool) or not isinstance(trials, int)
                               or not 1 <= trials <= MAX_TRIALS):
        raise ConfigError(f"must be a whole number from 1 to {MAX_TRIALS}, got {trials!r}",
                          None, "--trials")
    for flag in ("dry_run_delay", "dry_run_delay_min", "dry_run_delay_max"):
        _bounded(getattr(o, flag), f"--{flag.replace('_', '-')}", MAX_DRY_RUN_DELAY_MS, "ms")
    _bounded(o.agent_timeout, "--agent-timeout", 7 * 24 * 3600.0, "seconds", positive=True)
    retries = o.max_retries
    if retries is not None and (isinstance(retries, bool) or not isinstance(retries, int)):
        raise ConfigError(f"must be a whole number, got {retries!r}", None, "--max-retries")
    if retries is not None and not 0 <= retries <= 100:
        raise ConfigError(f"must be from 0 to 100, got {retries}", None, "--max-retries")
    if o.threshold is not None:
        o.threshold = _fraction(o.threshold, "--threshold")
    if o.budget_usd is not None:
        budget = _number(o.budget_usd, "--budget-usd")
        if not budget > 0:
            raise ConfigError(f"must be a positive number of US dollars, got {o.budget_usd!r}",
                              None, "--budget-usd")
        o.budget_usd = budget


def _number(value: Any, flag: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):
        raise ConfigError(f"must be a finite number, got {value!r}", None, flag)
    return float(value)


def _fraction(value: Any, flag: str) -> float:
    number = _number(value, flag)
    if not 0 <= number <= 1:
        raise ConfigError(f"must be a number from 0 to 1, got {value!r}", None, flag)
    return number


def _bounded(value: float | None, flag: str, top: float, unit: str,
             positive: bool = False) -> None:
    if value is None:
        return
    finite = not isinstance(value, bool) and isinstance(value, (int, float)) \
        and math.isfinite(value)
    low_ok = finite and (value > 0 if positive else value >= 0)
    if not low_ok or value > top:
        raise ConfigError(f"must be a finite number of {unit} from {'above ' if positive else ''}"
                          f"0 to {top:g}, got {value!r}", None, flag)

