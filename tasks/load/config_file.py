"""``.agentv/config.yaml`` (``$schema: agentv-config-v2``): one typed model for the run's
guideline patterns, ``execution.keep_workspaces``, ``agentv validate`` and ``agentv schema``.

The project's config (``run_config``) is found as AgentV 4.x finds it: the first
``.agentv/config.yaml`` from the current directory up to the repository root, else
``$AGENTV_HOME/config.yaml`` (default ``~/.agentv/config.yaml``)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from pydantic import BaseModel, ConfigDict, Field

from agentv.providers.base_settings import Int, NumbersNotText, parse_settings
from agentv.tasks.load.yamlsrc import LineDict, load_yaml_file

CONFIG_SCHEMA = "agentv-config-v2"


class ExecutionConfig(BaseModel):
    model_config = ConfigDict(extra="allow")
    keep_workspaces: bool | None = Field(
        None, description="Keep every agent case's workspace, passing ones too "
        "(as --keep-workspaces; a failed case's is kept anyway)")


class ConfigModel(NumbersNotText):
    model_config = ConfigDict(extra="allow", populate_by_name=True, allow_inf_nan=False)
    guideline_patterns: list[str] | None = Field(
        None, description="Globs (relative to the repository root) of guideline files")
    judge_target: str | None = None
    workers: Int | None = Field(None, ge=1, le=50)
    max_retries: Int | None = Field(None, ge=0, le=100, alias="max_retries")
    provider_batching: bool | None = None
    execution: ExecutionConfig | None = None
    allowed_paths: list[str] | None = Field(
        None, description="Folders (relative to the folder holding .agentv/) an eval file may "
        "read beyond its suite's root (as --allow-path)")


def load_config(path: str | Path, warn: Callable[[str], None] | None = None) -> ConfigModel:
    """Raises ConfigError (file:line: field: message); unknown keys go to ``warn``."""
    data = load_yaml_file(path)
    spath = str(path)
    if not isinstance(data, LineDict):
        from agentv.providers.errors import ConfigError
        raise ConfigError("a config file must be a mapping", f"{spath}:1")
    if "$schema" in data and data["$schema"] != CONFIG_SCHEMA:
        from agentv.providers.errors import ConfigError
        raise ConfigError(f"unexpected $schema {data['$schema']!r} (expected {CONFIG_SCHEMA})",
                          f"{spath}:{data.line_of('$schema')}", "$schema")
    body = {k: v for k, v in data.items() if k != "$schema"}
    if "maxRetries" in body and "max_retries" not in body:
        body["max_retries"] = body.pop("maxRetries")
    return parse_settings(ConfigModel, body, where=f"{spath}:{data.line}",
                          line_of=lambda k: f"{spath}:{data.line_of(k)}", warn=warn,
                          label=" in config file")


def run_config_path(cwd: str | Path | None = None) -> Path | None:
    """Where the project's config for this run is (see the module docstring), if anywhere."""
    from agentv.tasks.load.discover import find_upward
    found = find_upward(Path(cwd or os.getcwd()), (".agentv/config.yaml", ".agentv/config.yml"))
    home = Path(os.environ.get("AGENTV_HOME") or Path.home() / ".agentv") / "config.yaml"
    return found or (home if home.is_file() else None)


def run_config(cwd: str | Path | None = None) -> ConfigModel | None:
    """The project's config for this run (see the module docstring), or None."""
    path = run_config_path(cwd)
    return load_config(path) if path is not None else None
