"""``agentv validate``: check eval, targets and config files, detected by ``$schema``.

A YAML file without ``$schema`` is rejected with the line to add. No Prefect or litellm.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from providers.errors import ConfigError
from tasks.files import EVAL_SCHEMA, load_suite
from tasks.targets import TARGETS_SCHEMA, load_targets
from tasks.yamlsrc import LineDict, load_yaml_file

CONFIG_SCHEMA = "agentv-config-v2"
CONFIG_KEYS = {"$schema", "guideline_patterns", "judge_target", "workers", "max_retries",
               "maxRetries", "provider_batching"}
YAML_SUFFIXES = (".yaml", ".yml")


@dataclass
class Report:
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)


def collect_files(paths: list[str]) -> list[Path]:
    files: set[Path] = set()
    for arg in paths:
        p = Path(arg)
        if p.is_dir():
            files.update(f for f in p.rglob("*") if f.suffix in YAML_SUFFIXES and f.is_file())
        elif p.is_file():
            files.add(p)
        else:
            raise ConfigError("no such file or directory", arg)
    return sorted(files)


def _schema_hint(path: Path, data) -> str:
    if isinstance(data, dict) and "targets" in data:
        return TARGETS_SCHEMA
    if isinstance(data, dict) and "guideline_patterns" in data:
        return CONFIG_SCHEMA
    return EVAL_SCHEMA


def _check_config(path: Path, data: LineDict, report: Report) -> None:
    for key in data:
        if key not in CONFIG_KEYS:
            report.warnings.append(f"{path}:{data.line_of(key)}: unknown key '{key}' in config")
    pats = data.get("guideline_patterns")
    if pats is not None and (not isinstance(pats, list)
                             or not all(isinstance(p, str) for p in pats)):
        raise ConfigError("must be a list of glob strings",
                          f"{path}:{data.line_of('guideline_patterns')}", "guideline_patterns")


AGENT_KINDS = {"cli", "codex", "vscode", "vscode-copilot", "vscode-insiders"}


def _check_agent_targets(targets) -> None:
    """Agent targets' settings (command templates, codex presets...) are checked here too:
    building the provider checks them without running anything."""
    from providers.registry import build_provider
    for name in targets.names():
        if targets.entries[name].get("provider") not in AGENT_KINDS:
            continue
        try:
            target = targets.resolve(name)
        except ConfigError as err:
            if "is not set" in err.message:  # ${{ VAR }} unset here: checked when run
                continue
            raise
        build_provider(target)


def validate_file(path: Path, report: Report) -> None:
    data = load_yaml_file(path)
    schema = data.get("$schema") if isinstance(data, dict) else None
    if schema is None:
        hint = _schema_hint(path, data)
        raise ConfigError(f"missing $schema; add this line at the top: $schema: {hint}",
                          f"{path}:1", "$schema")
    if schema == EVAL_SCHEMA:
        load_suite(path, report.warnings.append)
    elif schema == TARGETS_SCHEMA:
        _check_agent_targets(load_targets(path, report.warnings.append))
    elif schema == CONFIG_SCHEMA:
        _check_config(path, data, report)
    else:
        raise ConfigError(f"unknown $schema {schema!r} (expected {EVAL_SCHEMA}, "
                          f"{TARGETS_SCHEMA} or {CONFIG_SCHEMA})",
                          f"{path}:{data.line_of('$schema')}", "$schema")
    report.checked.append(str(path))


def validate_paths(paths: list[str]) -> Report:
    report = Report()
    for f in collect_files(paths):
        try:
            validate_file(f, report)
        except ConfigError as err:
            report.errors.append(err.render())
    return report
