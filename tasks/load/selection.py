"""Which target each case runs on, across eval files: each file's own targets file, dry-run
mocks, and real targets resolved together (every missing variable in one message)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from agentv.providers.base import Target
from agentv.providers.errors import ConfigError
from agentv.tasks.load.files import EvalSuite
from agentv.tasks.load.redact import register, register_targets_file, secret_values
from agentv.tasks.load.targets import (
    TargetsFile,
    discover_targets,
    known_provider,
    load_targets,
    repo_relative,
)


def _mock_target(name: str, opts: Any, base: Target | None) -> Target:
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


class TargetFiles:
    """Each eval file's own targets file (``--targets`` overrides), loaded once per path."""

    def __init__(self, opts: Any, warn: Callable[[str], None]):
        self.opts, self.warn = opts, warn
        self.files: dict[Path, TargetsFile | None] = {}
        self.by_suite: dict[str, TargetsFile | None] = {}  # asked once per case: found once

    def for_suite(self, suite: EvalSuite) -> TargetsFile | None:
        if suite.path not in self.by_suite:
            self.by_suite[suite.path] = self._find(suite)
        return self.by_suite[suite.path]

    def _find(self, suite: EvalSuite) -> TargetsFile | None:
        path = discover_targets(self.opts.targets, [Path(suite.path)])
        key = path.resolve() if path else Path(suite.path)
        if key not in self.files:
            tf = load_targets(path, self.warn) if path else None
            if tf is not None:  # every target's referenced values, used or not
                register_targets_file(te.entry for te in tf.entries.values())
            if tf is not None and not tf.has_schema:
                self.warn(f"{path}:1: no $schema (inferred a targets file; add the line "
                          "'$schema: agentv-targets-v2')")
            self.files[key] = tf
        return self.files[key]


def _dry_run_target(name: str, tf: TargetsFile | None, opts: Any, where: str) -> Target:
    if tf is None and name != "default":  # named, but defined nowhere: the run would fail
        _selected(tf, name, where)
    if tf is None:  # no targets file at all: the mock stands in (a real run needs one)
        return _mock_target(name, opts, None)
    te = tf.entry(name, where)  # an unknown name fails the dry run as it fails the run
    known_provider(te)  # a wrong provider name is the file's error, dry run or not
    return _mock_target(name, opts, Target(name=name, provider="mock",
                                           judge_target=te.entry.get("judge_target"),
                                           workers=te.entry.get("workers"), where=te.where))


def _selected(tf: TargetsFile | None, name: str, where: str) -> TargetsFile:
    if tf is None:
        raise ConfigError("no targets.yaml found (looked beside the eval file, upward to the "
                          "repository root — or the filesystem root outside a repository — "
                          "and in the current directory; or pass --targets)", where, "target")
    tf.entry(name, where)
    return tf


QUALIFIER = " @ "  # a target key: its name, or "name @ targets file" (several definitions)


def target_name(key: str) -> str:
    """The target's name in a target key (what records and summaries show)."""
    return key.split(QUALIFIER, 1)[0]


def _same(a: TargetsFile | None, b: TargetsFile | None, name: str) -> bool:
    """The two files define target ``name`` alike (or one does not define it)."""
    if a is b or a is None or b is None or name not in a.entries or name not in b.entries:
        return True
    return dict(a.entries[name].entry) == dict(b.entries[name].entry)


class TargetResolver:
    """Targets by name across the eval files, each file resolving names in its own targets
    file (as AgentV does): a name two files define differently becomes two targets, the
    second keyed ``name @ file``. Real targets are resolved together so every missing
    variable of every selected target is named in one message."""

    def __init__(self, opts: Any, warn: Callable[[str], None]):
        self.opts, self.warn = opts, warn
        self.chosen: dict[str, tuple[TargetsFile | None, str]] = {}  # key -> (file, where)
        self.targets: dict[str, Target] = {}
        self.real: dict[str, TargetsFile] = {}  # real runs: each target's own file
        self.judge_of: dict[str, str | None] = {}  # key -> its judge's key

    def key(self, name: str, tf: TargetsFile | None) -> str:
        if self.opts.dry_run:
            return name
        for key, (prev, _) in self.chosen.items():
            if target_name(key) == name and _same(prev, tf, name):
                return key
        taken = any(target_name(key) == name for key in self.chosen)
        return f"{name}{QUALIFIER}{repo_relative(tf.path)}" if taken and tf else name

    def use(self, name: str, tf: TargetsFile | None, where: str) -> str:
        """The key of target ``name`` as ``tf`` defines it (resolved with its judge)."""
        key = self.key(name, tf)
        if key in self.chosen:
            return key
        if self.opts.dry_run:
            self.targets[key] = _dry_run_target(name, tf, self.opts, where)
            judge = self.targets[key].judge_target
        else:
            tf = _selected(tf, name, where)
            self.real[key] = tf
            judge = tf.entries[name].entry.get("judge_target")
        self.chosen[key] = (tf, where)
        self.judge_of[key] = None
        chosen_judge = getattr(self.opts, "grader_target", None)
        if chosen_judge and chosen_judge != name:  # --grader-target: the judge of every target
            judge = chosen_judge
        entry = tf.entries.get(name) if tf else None
        if judge and tf and entry is not None and entry.lazy_judge and judge not in tf.entries:
            judge = None  # AgentV 4.x's grader_target naming no target: unused unless judging
        if judge:
            at = tf.entries[name].at("judge_target") if tf and name in tf.entries else where
            self.judge_of[key] = self.use(judge, tf, at)
        return key

    def judges(self) -> dict[str, str | None]:
        return dict(self.judge_of)

    def provider_of(self, key: str) -> tuple[str, str] | None:
        """(provider, where) of the target behind ``key`` as its file defines it (a dry
        run's mock stands in for it), or None without a definition."""
        tf = self.chosen[key][0]
        name = target_name(key)
        if tf is None or name not in tf.entries:
            return None
        te = tf.entries[name]
        return str(te.entry["provider"]), te.at("provider")

    def resolve_all(self) -> dict[str, Target]:
        if self.opts.dry_run:
            return self.targets
        real = {key: (target_name(key), tf) for key, tf in self.real.items()}
        for name, tf in real.values():
            known_provider(tf.entries[name])
        gaps = [(n, tf, tf.gaps(n)) for n, tf in real.values()]
        gaps = [(n, tf, g) for n, tf, g in gaps if g]
        if len(gaps) == 1:
            raise gaps[0][1].gap_error(gaps[0][0], gaps[0][2])
        if gaps:
            name, tf, first = gaps[0]
            listed = "; ".join(f"target '{n}': {', '.join(dict.fromkeys(v for v, _ in g))}"
                               for n, _, g in gaps)
            raise ConfigError(f"environment variables not set — {listed} (set them in the "
                              "environment or a .env file)", tf.where(name), "settings")
        for key, (name, tf) in real.items():
            target = tf.resolve(name)
            if self.opts.agent_timeout is not None and _is_agent(target):
                target.settings.pop("timeoutSeconds", None)
                target.settings["timeout_seconds"] = self.opts.agent_timeout
            register(secret_values([target]))
            self.targets[key] = target
        return self.targets


def _is_agent(target: Target) -> bool:
    from agentv.providers.registry import provider_class
    return bool(getattr(provider_class(target.provider, target.where), "is_agent", False))
