"""``agentv validate``: exactly the checks a run performs before its first case.

Each eval file (YAML, or a JSONL dataset with its sidecar) goes through ``build_plan`` —
the function ``agentv eval`` runs before anything else — as a dry run: loading, its own
targets file, every target's settings model, referenced files and scripts, placeholders,
judge targets. No target is called and neither Prefect nor litellm is imported. Targets
and config files are checked with their own models. Without ``$schema`` the file type is
inferred like AgentV 2.x (a warning, not an error).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agentv.providers.errors import ConfigError, error_lines
from agentv.tasks.load.config_file import CONFIG_SCHEMA, load_config
from agentv.tasks.load.discover import walk_files
from agentv.tasks.load.files import EVAL_SCHEMA
from agentv.tasks.load.targets import TARGET_NAMES, TARGETS_SCHEMA, load_targets
from agentv.tasks.load.yamlsrc import load_yaml_file

SUFFIXES = (".yaml", ".yml", ".jsonl")
KINDS = {EVAL_SCHEMA: "eval", TARGETS_SCHEMA: "targets", CONFIG_SCHEMA: "config"}


@dataclass
class Report:
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    invalid: int = 0  # files with errors (each may have several)


def collect_files(paths: list[str]) -> list[tuple[Path, bool]]:
    """(file, named explicitly). Directory walks skip .git, .venv, node_modules and
    ``.agentv`` output folders."""
    files: dict[Path, bool] = {}
    for arg in paths:
        p = Path(arg)
        if p.is_dir():
            for f in walk_files(p, SUFFIXES):
                files.setdefault(f, False)
        elif p.is_file():
            files[p] = True
        else:
            raise ConfigError("no such file or directory", arg)
    return sorted(files.items())


def _sidecar_of(path: Path) -> Path | None:
    if path.suffix in (".yaml", ".yml") and path.with_suffix(".jsonl").is_file():
        return path.with_suffix(".jsonl")
    return None


def infer_kind(path: Path, data) -> str | None:
    """``eval`` | ``targets`` | ``config`` | None (not an AgentV file)."""
    schema = data.get("$schema") if isinstance(data, dict) else None
    if schema in KINDS:
        return KINDS[schema]
    if path.name in TARGET_NAMES or (isinstance(data, dict) and "targets" in data):
        return "targets"
    if path.parent.name == ".agentv" and path.stem == "config":
        return "config"
    if isinstance(data, dict) and "guideline_patterns" in data and "evalcases" not in data:
        return "config"
    if isinstance(data, dict) and ("evalcases" in data or "cases" in data):
        return "eval"
    from agentv.tasks.load.generation import is_v4_data
    if is_v4_data(data):  # AgentV 4.x: no $schema, `tests:`
        return "eval"
    if schema is not None:
        raise ConfigError(f"unknown $schema {schema!r} (expected {EVAL_SCHEMA}, "
                          f"{TARGETS_SCHEMA} or {CONFIG_SCHEMA})",
                          f"{path}:{data.line_of('$schema')}", "$schema")
    return None


def _is_results(path: Path) -> bool:
    from agentv.tasks.load.discover import _is_results as results
    return results(path)


def check_eval(path: Path, report: Report, strict: bool = False,
               allow_path: tuple[str, ...] = ()) -> None:
    from agentv.tasks.plan.plan import EvalOptions, build_plan
    build_plan(EvalOptions(paths=[str(path)], dry_run=True, strict=strict,
                           allow_path=list(allow_path)), warn=report.warnings.append)


def walk_picks(path: Path) -> bool:
    """What a directory walk checks: the eval files ``agentv eval DIR`` runs (as AgentV
    4.42.4 picks them: ``*.eval.yaml``, ``eval.yaml``, files under ``evals/``; v2 files;
    JSONL datasets, not results or fixtures), targets and config files."""
    from agentv.tasks.load.discover import _looks_like_eval
    if path.name in TARGET_NAMES or path.parent.name == ".agentv":
        return True
    if path.suffix != ".jsonl" and _sidecar_of(path) is not None:
        return _looks_like_eval(path.with_suffix(".jsonl"))
    if _looks_like_eval(path):
        return True
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        return False
    return any(schema in head for schema in (TARGETS_SCHEMA, CONFIG_SCHEMA))


def validate_file(path: Path, explicit: bool, report: Report, strict: bool = False,
                  allow_path: tuple[str, ...] = ()) -> None:
    """``allow_path``: folders beyond each eval file's root it may read (``--allow-path``)."""
    if not explicit and not walk_picks(path):
        report.skipped.append(str(path))
        return
    if path.suffix == ".jsonl":
        if _is_results(path):
            report.skipped.append(f"{path} (results, not a dataset)")
            return
        check_eval(path, report, strict, allow_path)
        report.checked.append(str(path))
        return
    dataset = _sidecar_of(path)
    if dataset is not None:  # a JSONL dataset's sidecar: checked together with it
        if explicit:
            check_eval(dataset, report, strict, allow_path)
            report.checked.append(str(path))
        return
    data = load_yaml_file(path)
    kind = infer_kind(path, data)
    if kind is None and not explicit:  # a directory walk: not an AgentV file
        report.skipped.append(str(path))
        return
    kind = kind or "eval"  # named explicitly: checked as eval does
    if not (isinstance(data, dict) and "$schema" in data) and kind != "eval":
        _warn(report, strict, f"{path}:1: no $schema (inferred a {kind} file; add the line "
              f"'$schema: agentv-{kind}-v2')")
    if kind == "eval":
        check_eval(path, report, strict, allow_path)
    elif kind == "targets":
        _check_agent_targets(load_targets(path, lambda w: _warn(report, strict, w)))
    else:
        load_config(path, lambda w: _warn(report, strict, w))
    report.checked.append(str(path))


def _check_agent_targets(targets) -> None:
    """Agent targets' settings (command templates, codex presets...) are checked here too:
    building the provider checks them without running anything. Which targets are agents
    is their provider's fact (``providers.registry.facts``)."""
    from agentv.providers.registry import build_provider
    for name in targets.names():
        if not _is_agent(targets.entries[name].entry.get("provider")):
            continue
        if targets.missing(name):  # ${{ VAR }} unset here: checked when run
            continue
        build_provider(targets.resolve(name))


def _is_agent(kind: object) -> bool:
    from agentv.providers.registry import facts
    try:
        return isinstance(kind, str) and facts(kind).agent_prompt
    except ConfigError:  # an unknown provider: load_targets said so already
        return False


def _warn(report: Report, strict: bool, message: str) -> None:
    if strict:
        raise ConfigError(f"{message} (an error with --strict)")
    report.warnings.append(message)


def validate_paths(paths: list[str], strict: bool = False,
                   allow_path: tuple[str, ...] | list[str] = ()) -> Report:
    from agentv.tasks.load.boundary import check_allow_paths
    allowed = tuple(check_allow_paths(list(allow_path)))
    report = Report()
    for f, explicit in collect_files(paths):
        try:
            validate_file(f, explicit, report, strict, allowed)
        except ConfigError as err:
            report.errors.extend(error_lines(err))
            report.invalid += 1
    report.warnings = list(dict.fromkeys(report.warnings))
    return report
