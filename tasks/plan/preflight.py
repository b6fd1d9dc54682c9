"""What a run checks as it starts, checked before: ``validate``, ``--dry-run`` and the run
see the same errors before any case. Each agent target a case uses is built as the run
builds it (its command template, env, healthcheck settings) and its working directory is
looked up for every eval file that runs on it — nothing is started, no URL is called. A
target whose ``${{ VARIABLES }}`` are unset here is left to the run's own check of them."""
from __future__ import annotations

from typing import Any, Iterable

from agentv.providers.errors import ConfigError


def _eval_dirs(jobs: Iterable[Any]) -> dict[str, set[str]]:
    dirs: dict[str, set[str]] = {}
    for job in jobs:
        dirs.setdefault(job.target, set()).add(job.case.base_dir)
    return dirs


def _is_agent(provider: object) -> bool:
    from agentv.providers.registry import facts
    try:
        return isinstance(provider, str) and facts(provider).agent_prompt
    except ConfigError:  # an unknown provider: reported on its own
        return False


def _check_agent(tf: Any, name: str, eval_dirs: set[str]) -> None:
    from agentv.providers.agents.cli_cwd import check_cwd, cwd_origin
    from agentv.providers.registry import build_provider
    provider = build_provider(tf.resolve(name))  # the settings' static checks
    config = getattr(provider, "config", None)
    if config is None or not hasattr(provider, "cwd"):
        return
    for eval_dir in sorted(eval_dirs):
        check_cwd(provider.cwd(eval_dir), tf.entries[name].at("cwd"), "cwd",
                  cwd_origin(getattr(config, "cwd", None), eval_dir, provider.target.base_dir))


def target_errors(jobs: Iterable[Any], resolver: Any) -> list[ConfigError]:
    """One error per used agent target that would fail the run's start."""
    from agentv.tasks.load.selection import target_name
    errors: list[ConfigError] = []
    for key, eval_dirs in _eval_dirs(jobs).items():
        tf = resolver.chosen[key][0] if key in resolver.chosen else None
        name = target_name(key)
        if tf is None or name not in tf.entries \
                or not _is_agent(tf.entries[name].entry.get("provider")) or tf.missing(name):
            continue
        try:
            _check_agent(tf, name, eval_dirs)
        except ConfigError as err:
            errors.append(err)
    return errors
