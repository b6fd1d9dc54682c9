"""targets.yaml: discovery, parsing, ``${{ VAR }}`` / env-var-name settings, target selection.

Settings are resolved only for targets that are used, so an unset variable of an unused
target is not an error. Resolved secret values are collected for redaction.
"""
from __future__ import annotations

import os
import re
from functools import lru_cache
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from providers.base import ConfigError, Target
from tasks.discover import find_upward, repo_root
from tasks.yamlsrc import LineDict, load_yaml_file

TARGETS_SCHEMA = "agentv-targets-v2"
TARGET_NAMES = ("targets.yaml", "targets.yml", ".agentv/targets.yaml", ".agentv/targets.yml")
STRUCTURAL = {"name", "provider", "judge_target", "workers", "provider_batching", "settings",
              "$schema"}
_INTERP = re.compile(r"\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")
_SECRET_KEY = re.compile(r"key|token|secret|password|credential", re.I)


@dataclass
class TargetsFile:
    path: str
    entries: dict[str, LineDict] = field(default_factory=dict)
    has_schema: bool = True

    def names(self) -> list[str]:
        return list(self.entries)

    def where(self, name: str) -> str:
        entry = self.entries[name]
        return f"{self.path}:{getattr(entry, 'line', 0)}"

    def resolve(self, name: str, env: dict[str, str] | None = None) -> Target:
        if name not in self.entries:
            raise ConfigError(f"unknown target '{name}' (known: {', '.join(self.names()) or 'none'})",
                              self.path, "target")
        entry = self.entries[name]
        from providers.registry import PROVIDERS
        if entry["provider"] not in PROVIDERS:
            raise ConfigError(f"unknown provider '{entry['provider']}' (known: "
                              f"{', '.join(sorted(PROVIDERS))})",
                              f"{self.path}:{entry.line_of('provider')}", "provider")
        return _resolve_entry(entry, self.path, env if env is not None else os.environ)


def discover_targets(explicit: str | None, eval_files: list[Path]) -> Path | None:
    if explicit:
        p = Path(explicit)
        if p.is_dir():
            hit = next((p / n for n in TARGET_NAMES if (p / n).is_file()), None)
            if hit is None:
                raise ConfigError("no targets.yaml or .agentv/targets.yaml in this directory",
                                  explicit, "--targets")
            return hit
        if not p.is_file():
            raise ConfigError("targets file not found", explicit, "--targets")
        return p
    for f in eval_files:
        hit = find_upward(f.parent, TARGET_NAMES)
        if hit:
            return hit
    return next((Path.cwd() / n for n in TARGET_NAMES if (Path.cwd() / n).is_file()), None)


def load_targets(path: Path, warn: Callable[[str], None]) -> TargetsFile:
    data = load_yaml_file(path)
    spath = str(path)
    if not isinstance(data, dict) or not isinstance(data.get("targets"), list):
        line = data.line_of("targets") if isinstance(data, LineDict) else 1
        raise ConfigError("must be a list of targets", f"{spath}:{line}", "targets")
    tf = TargetsFile(path=spath, has_schema=data.get("$schema") == TARGETS_SCHEMA)
    if "$schema" in data and data["$schema"] != TARGETS_SCHEMA:
        raise ConfigError(f"unexpected $schema {data['$schema']!r} (expected {TARGETS_SCHEMA})",
                          f"{spath}:{data.line_of('$schema')}", "$schema")
    for key in data:
        if key not in ("$schema", "targets"):
            warn(f"{spath}:{data.line_of(key)}: unknown key '{key}' in targets file (ignored)")
    from providers.registry import PROVIDERS
    for i, entry in enumerate(data["targets"]):
        at = f"{spath}:{data['targets'].line_of(i)}"
        if not isinstance(entry, dict):
            raise ConfigError("a target must be a mapping", at)
        name, provider = entry.get("name"), entry.get("provider")
        if not isinstance(name, str) or not name:
            raise ConfigError("required field missing", at, "name")
        if not isinstance(provider, str) or not provider:
            raise ConfigError("required field missing", at, "provider")
        if provider not in PROVIDERS:  # an error only if the target is used
            warn(f"{spath}:{entry.line_of('provider')}: target '{name}': unknown provider "
                 f"'{provider}' (known: {', '.join(sorted(PROVIDERS))})")
        if name in tf.entries:
            raise ConfigError(f"duplicate target name '{name}' (first at line "
                              f"{tf.entries[name].line})", at, "name")
        _check_structural(entry, spath)
        tf.entries[name] = entry
    return tf


def _check_structural(entry: LineDict, spath: str) -> None:
    workers = entry.get("workers")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or not 1 <= workers <= 50):
        raise ConfigError(f"must be a whole number from 1 to 50, got {workers!r}",
                          f"{spath}:{entry.line_of('workers')}", "workers")
    settings = entry.get("settings")
    if settings is not None and not isinstance(settings, dict):
        raise ConfigError("must be a mapping", f"{spath}:{entry.line_of('settings')}", "settings")


def _interpolate(value: Any, env, at: str, key: str, secrets: list[str]) -> Any:
    if isinstance(value, str):
        def sub(m: re.Match[str]) -> str:
            var = m.group(1)
            if not env.get(var):
                raise ConfigError(f"environment variable {var} is not set (used by ${{{{ {var} }}}})",
                                  at, key)
            if _SECRET_KEY.search(var) or _SECRET_KEY.search(key):
                secrets.append(env[var])
            return env[var]
        return _INTERP.sub(sub, value)
    if isinstance(value, list):
        return [_interpolate(v, env, at, key, secrets) for v in value]
    if isinstance(value, dict):
        return {k: _interpolate(v, env, at, f"{key}.{k}", secrets) for k, v in value.items()}
    return value


def _resolve_entry(entry: LineDict, spath: str, env) -> Target:
    secrets: list[str] = []
    settings: dict[str, Any] = {}
    for key, value in entry.items():
        if key in STRUCTURAL:
            continue
        settings[key] = _interpolate(value, env, f"{spath}:{entry.line_of(key)}", key, secrets)
    nested = entry.get("settings") or {}
    for key, value in nested.items():
        at = f"{spath}:{nested.line_of(key) if isinstance(nested, LineDict) else entry.line}"
        if isinstance(value, str) and _ENV_NAME.match(value):
            if not env.get(value):
                raise ConfigError(f"environment variable {value} is not set", at,
                                  f"settings.{key}")
            value = env[value]
            if _SECRET_KEY.search(key):
                secrets.append(value)
        else:
            value = _interpolate(value, env, at, key, secrets)
        settings[key] = value
    for key, value in settings.items():
        if _SECRET_KEY.search(key) and isinstance(value, str) and value:
            secrets.append(value)
    return Target(name=entry["name"], provider=entry["provider"], settings=settings,
                  judge_target=entry.get("judge_target"), workers=entry.get("workers"),
                  provider_batching=_batching(entry, nested),
                  where=f"{spath}:{entry.line}", base_dir=str(Path(spath).parent),
                  secrets=sorted({s for s in secrets if len(s) >= 4}))


def _batching(entry: LineDict, nested: Any) -> bool:
    """``provider_batching`` at the top level or, as AgentV's own files write it, under
    ``settings``."""
    if entry.get("provider_batching") is not None:
        return bool(entry["provider_batching"])
    return isinstance(nested, dict) and bool(nested.get("provider_batching", False))


def select_target_name(cli_target: str | None, case_target: str | None,
                       suite_target: str | None) -> str:
    if cli_target and cli_target != "default":
        return cli_target
    return case_target or suite_target or "default"


@lru_cache(maxsize=1024)
def repo_relative(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(repo_root()))
    except ValueError:
        return path
