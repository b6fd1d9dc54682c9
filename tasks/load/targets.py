"""targets.yaml: discovery, parsing, typed settings, ``${{ VAR }}`` / env-name forms, selection.

Loading checks every target's structure and its provider's settings model (values holding a
``${{ VAR }}`` are type-checked once filled in). Resolving fills in variables for the
targets a run uses: an unset variable of an unused target is not an error, and the plan
reports every missing variable of every selected target in one message.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import AbstractSet, Any, Callable, Mapping

from pydantic import ConfigDict, Field

from agentv.providers.base import ConfigError, Target
from agentv.providers.base_settings import (
    Int,
    NumbersNotText,
    parse_settings,
    secret_values,
    typed_values,
)
from agentv.providers.errors import ErrorCollector, did_you_mean, unknown_key
from agentv.providers.limits import SharedLimitModel, shared_limit_of
from agentv.tasks.load.discover import (  # noqa: F401 - this module's API
    TARGET_NAMES,
    discover_targets,
    repo_root,
)
from agentv.tasks.load.placeholders import check_placeholders, interpolate, placeholders
from agentv.tasks.load.target_checks import check_model_given, unset_variables
from agentv.tasks.load.targets_agentv4 import agentv4_spellings
from agentv.tasks.load.yamlsrc import LineDict, LineList, load_yaml_file

TARGETS_SCHEMA = "agentv-targets-v2"
STRUCTURAL = {"name", "provider", "judge_target", "workers", "provider_batching", "settings",
              "shared_limit", "$schema"}
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")
_SECRET_KEY = re.compile(r"key|token|secret|password|credential", re.I)


class TargetEntryModel(NumbersNotText):
    """The structural keys of one target; everything else is the provider's settings."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    name: str = Field(min_length=1)
    provider: str = Field(min_length=1)
    judge_target: str | None = None
    workers: Int | None = Field(None, ge=1, le=50)
    provider_batching: bool = False
    shared_limit: SharedLimitModel | None = None
    settings: dict[str, Any] | None = Field(
        None, description="README style: values that are UPPER_CASE names are env variables")


@dataclass
class TargetEntry:
    """One target as written: structure, raw settings and where each key is."""

    entry: LineDict
    path: str
    settings: dict[str, Any] = field(default_factory=dict)  # flat, keys as written
    lines: dict[str, int] = field(default_factory=dict)
    env_names: dict[str, str] = field(default_factory=dict)  # settings-block NAME values
    lazy_judge: bool = False  # grader_target (AgentV 4.x): a name checked only when judging

    @property
    def name(self) -> str:
        return self.entry["name"]

    @property
    def where(self) -> str:
        return f"{self.path}:{self.entry.line}"

    def at(self, key: str) -> str:
        return f"{self.path}:{self.lines.get(key) or self.entry.line_of(key)}"

    def variables(self) -> dict[str, list[str]]:
        """setting key -> the environment variables its value needs."""
        found = {k: placeholders(v) for k, v in self.settings.items()}
        found.update({k: [v] for k, v in self.env_names.items()})
        return {k: v for k, v in found.items() if v}


@dataclass
class TargetsFile:
    path: str
    entries: dict[str, TargetEntry] = field(default_factory=dict)
    has_schema: bool = True

    def names(self) -> list[str]:
        return list(self.entries)

    def where(self, name: str) -> str:
        return self.entries[name].where

    def entry(self, name: str, where: str | None = None) -> TargetEntry:
        if name not in self.entries:
            known = ", ".join(self.names()) or "none"
            raise ConfigError(f"unknown target '{name}'{did_you_mean(name, self.entries)} "
                              f"(known: {known}; define it in {self.path} or name one of "
                              "these)", where or self.path, "target")
        return self.entries[name]

    def gaps(self, name: str, env: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
        """(variable, setting key) for every environment variable target ``name`` needs and
        lacks — placeholders first, then credentials that default to a variable."""
        env = os.environ if env is None else env
        te = self.entry(name)
        found = [(v, k) for k, vs in te.variables().items() for v in vs if not env.get(v)]
        if found:
            return list(dict.fromkeys(found))
        config = _config(te, _filled(te, env), None, from_env=True)
        return [(v, "") for v in config.missing_env(env)] if config is not None else []

    def missing(self, name: str, env: Mapping[str, str] | None = None) -> list[str]:
        return list(dict.fromkeys(v for v, _ in self.gaps(name, env)))

    def gap_error(self, name: str, gaps: list[tuple[str, str]]) -> ConfigError:
        te = self.entries[name]
        key = next((k for _, k in gaps if k), "")
        names = list(dict.fromkeys(v for v, _ in gaps))
        what = (f"environment variable {names[0]} is not set" if len(names) == 1 else
                f"environment variables {', '.join(names)} are not set")
        return ConfigError(f"{what} (target '{name}'; set them in the environment or a .env "
                           "file)", te.at(key) if key else te.where, key or "settings")

    def resolve(self, name: str, env: Mapping[str, str] | None = None) -> Target:
        env = os.environ if env is None else env
        te = self.entry(name)
        known_provider(te)
        gaps = self.gaps(name, env)
        if gaps:
            raise self.gap_error(name, gaps)
        filled = _filled(te, env)
        config = _config(te, filled, None, from_env=True)
        settings = typed_values(filled, config)
        secrets = secret_values(config) + _secret_like(te, filled, env)
        entry = te.entry
        return Target(name=name, provider=entry["provider"], settings=settings,
                      judge_target=entry.get("judge_target"), workers=entry.get("workers"),
                      provider_batching=_batching(entry, entry.get("settings")),
                      shared_limit=shared_limit_of(entry.get("shared_limit")), where=te.where,
                      base_dir=str(Path(self.path).parent),
                      secrets=sorted({s for s in secrets if len(s) >= 4}), config=config)


def _filled(te: TargetEntry, env: Mapping[str, str]) -> dict[str, Any]:
    out = {k: interpolate(v, env) for k, v in te.settings.items()}
    out.update({k: env.get(v, "") for k, v in te.env_names.items()})
    return out


def known_provider(te: TargetEntry) -> None:
    from agentv.providers.registry import REGISTRY, known_kinds
    if te.entry["provider"] not in REGISTRY:
        kind = te.entry["provider"]
        raise ConfigError(f"unknown provider '{kind}'{did_you_mean(kind, known_kinds())} "
                          f"(known: {', '.join(known_kinds())})", te.at("provider"), "provider")


def _config(te: TargetEntry, settings: dict[str, Any], warn,
            deferred: AbstractSet[str] = frozenset(), from_env: bool = False):
    from agentv.providers.registry import REGISTRY, settings_model
    provider = te.entry["provider"]
    if provider not in REGISTRY:
        return None
    return parse_settings(settings_model(provider), settings, where=te.where, line_of=te.at,
                          deferred=deferred, warn=warn, from_env=from_env,
                          label=f" for provider {provider} (target '{te.name}')")


def _secret_like(te: TargetEntry, settings: dict[str, Any], env: Mapping[str, str]) -> list[str]:
    """Values of unknown keys that look secret, and variables named like credentials."""
    found = [v for k, v in settings.items()
             if _SECRET_KEY.search(k) and isinstance(v, str) and v]
    for var in (v for vs in te.variables().values() for v in vs):
        if _SECRET_KEY.search(var) and env.get(var):
            found.append(env[var])
    return found


def load_targets(path: Path, warn: Callable[[str], None]) -> TargetsFile:
    data = load_yaml_file(path)
    spath = str(path)
    if not isinstance(data, LineDict) or not isinstance(data.get("targets"), LineList):
        line = data.line_of("targets") if isinstance(data, LineDict) else 1
        raise ConfigError("must be a list of targets", f"{spath}:{line}", "targets")
    schema = data.get("$schema")  # AgentV 4.x writes minor versions: agentv-targets-v2.2
    tf = TargetsFile(path=spath, has_schema=str(schema).split(".")[0] == TARGETS_SCHEMA)
    if "$schema" in data and not tf.has_schema:
        raise ConfigError(f"unexpected $schema {data['$schema']!r} (expected {TARGETS_SCHEMA})",
                          f"{spath}:{data.line_of('$schema')}", "$schema")
    for key in data:
        if key not in ("$schema", "targets"):
            unknown_key(key, "targets file", ("targets",), f"{spath}:{data.line_of(key)}", warn)
    errors = ErrorCollector()  # every target's errors at once
    for i, entry in enumerate(data["targets"]):
        with errors.check():
            te = _entry(entry, spath, data["targets"].line_of(i), warn)
            if te.name in tf.entries:
                raise ConfigError(f"duplicate target name '{te.name}' (first at line "
                                  f"{tf.entries[te.name].entry.line})", f"{spath}:{entry.line}",
                                  "name")
            tf.entries[te.name] = te
    written = [e["name"] for e in data["targets"] if isinstance(e, dict)
               and isinstance(e.get("name"), str)]  # invalid ones too: said already
    for te in tf.entries.values():
        judge = te.entry.get("judge_target")
        with errors.check():
            if judge is not None and judge not in written and not te.lazy_judge:
                raise ConfigError(f"unknown judge_target '{judge}'{did_you_mean(judge, written)}"
                                  f" (known: {', '.join(written)})", te.at("judge_target"),
                                  "judge_target")
    if errors.errors:  # and the variables still to set: every error of the file at once
        errors.errors.extend(unset_variables(data["targets"], spath))
    errors.raise_any()
    return tf


def _entry(entry: Any, spath: str, line: int, warn: Callable[[str], None]) -> TargetEntry:
    at = f"{spath}:{line}"
    if not isinstance(entry, LineDict):
        raise ConfigError("a target must be a mapping", at)
    lazy_judge = agentv4_spellings(entry)  # grader_target
    for key in ("name", "provider"):
        value = entry.get(key)
        if not isinstance(value, str) or not value.strip():
            raise ConfigError("required field missing or not a string" if value is None
                              or isinstance(value, str) else f"must be a string, got {value!r}",
                              f"{spath}:{entry.line_of(key)}", key)
    te = TargetEntry(entry, spath, lazy_judge=lazy_judge)
    structural = {k: v for k, v in entry.items() if k in STRUCTURAL and k != "$schema"}
    errors = ErrorCollector()  # the structure's and the settings' errors at once
    with errors.check():
        parse_settings(TargetEntryModel, structural, where=te.where,
                       line_of=lambda k: f"{spath}:{entry.line_of(k)}")
    for key, value in entry.items():
        if key not in STRUCTURAL:
            te.settings[key], te.lines[key] = value, entry.line_of(key)
    given = entry.get("settings")
    nested = given if isinstance(given, LineDict) else LineDict()
    for key, value in nested.items():
        if key == "provider_batching":  # structural, as AgentV's own files write it
            continue
        te.lines[key] = nested.line_of(key)
        if isinstance(value, str) and _ENV_NAME.match(value):
            te.env_names[key] = value  # README style: the value names an env variable
        else:
            te.settings[key] = value
    for key, value in te.settings.items():
        with errors.check():
            check_placeholders(value, te.at(key), key)
    from agentv.providers.registry import REGISTRY, known_kinds
    if entry["provider"] not in REGISTRY:  # an error only if the target is used
        warn(f"{te.at('provider')}: target '{te.name}': unknown provider "
             f"'{entry['provider']}'{did_you_mean(entry['provider'], known_kinds())} "
             f"(known: {', '.join(known_kinds())})")
        errors.raise_any()
        return te
    raw = {**te.settings, **{k: f"${{{{ {v} }}}}" for k, v in te.env_names.items()}}
    with errors.check():
        _config(te, raw, warn, deferred=set(te.variables()))
    with errors.check():
        check_model_given(te)
    errors.raise_any()
    return te


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
