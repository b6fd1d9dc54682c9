"""Checks of a target entry that need no environment: an LLM target that names no model
(``provider: openai`` without ``model``) fails every call of a run, so it is an error when
the file is read — by ``validate``, ``--dry-run`` and the run alike."""
from __future__ import annotations

from typing import Any

from pydantic import AliasChoices

from agentv.providers.errors import ConfigError


def check_model_given(te: Any) -> None:
    """``te``: a ``TargetEntry``. An LLM kind with no default model and no environment
    variable naming one needs ``model`` (or one of its spellings) in the entry."""
    from agentv.providers.registry import settings_model
    provider = te.entry["provider"]
    cls = settings_model(provider)
    spec_of = getattr(cls, "kind_spec", None)
    if spec_of is None or "model" not in cls.model_fields:
        return
    spec = spec_of()
    if spec.default_model or spec.model_env:
        return
    alias = cls.model_fields["model"].validation_alias
    names = {"model", *(a for a in (alias.choices if isinstance(alias, AliasChoices) else ())
                        if isinstance(a, str))}
    if not names & (set(te.settings) | set(te.env_names)):
        raise ConfigError(f"required for provider {provider} (e.g. model: gpt-4o-mini; "
                          f"litellm: provider/model)", te.where, "model")


def unset_variables(entries: Any, spath: str, env: Any = None) -> list[ConfigError]:
    """For a targets file that has errors already: every target's unset ``${{ VARIABLES }}``
    too, one error per target — so one pass reports all that must be fixed, not the schema
    errors first and the variables after."""
    import os

    from agentv.tasks.load.placeholders import placeholders
    env = os.environ if env is None else env
    found: list[ConfigError] = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        unset = {key: [v for v in placeholders(value) if not env.get(v)]
                 for key, value in entry.items() if key != "name"}
        unset = {k: v for k, v in unset.items() if v}
        if not unset:
            continue
        names = list(dict.fromkeys(v for vs in unset.values() for v in vs))
        key = next(iter(unset))
        line = entry.line_of(key) if hasattr(entry, "line_of") else 1
        what = (f"environment variable {names[0]} is not set" if len(names) == 1 else
                f"environment variables {', '.join(names)} are not set")
        found.append(ConfigError(f"{what} (target '{entry.get('name')}'; set them in the "
                                 "environment or a .env file)", f"{spath}:{line}", key))
    return found
