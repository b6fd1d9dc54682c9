"""``workspace:`` of an eval file (suite level, replaced per case), as AgentV 4.42.4 writes it
where it maps: ``template`` (a folder copied into each case's workspace), ``repos`` (git
checkouts: ``path`` inside the workspace, ``repo`` a clone URL or local path, ``commit`` /
``base_commit`` the pinned ref), ``hooks.before_each.command`` (or agentv's shorter
``setup``: an argv list run in the workspace before the agent, with ``timeout_ms``) and the
retention policy ``retain_on_success`` / ``retain_on_failure`` (``keep`` | ``cleanup``;
default: cleanup on success, keep on failure, as AgentV). Relative paths are relative to the
eval file. Checked when the eval file loads: an error names file:line and field.
"""
from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agentv.providers.error_phrases import describe_error
from agentv.providers.errors import ConfigError

DEFAULT_SETUP_TIMEOUT_MS = 60_000.0


class RepoSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    path: str = Field(min_length=1)
    repo: str = Field(min_length=1)
    commit: str | None = None
    base_commit: str | None = None

    @property
    def ref(self) -> str:
        return self.commit or self.base_commit or "HEAD"


class HookSpec(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    command: list[str] | str | None = None
    timeout_ms: float = Field(DEFAULT_SETUP_TIMEOUT_MS, gt=0)
    cwd: str | None = None

    @field_validator("command")
    @classmethod
    def _argv(cls, value: Any) -> Any:
        argv = shlex.split(value) if isinstance(value, str) else value
        if argv is not None and not argv:
            raise ValueError("must be a non-empty command (a list of arguments)")
        return argv


class Hooks(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    before_all: HookSpec | None = None
    before_each: HookSpec | None = None


class WorkspaceSpec(BaseModel):
    """A case's workspace; ``base_dir`` is the eval file's folder."""
    model_config = ConfigDict(extra="ignore", frozen=True)
    template: str | None = None
    repos: tuple[RepoSpec, ...] = ()
    setup: HookSpec | None = None
    hooks: Hooks | None = None
    retain_on_success: Literal["keep", "cleanup"] = "cleanup"
    retain_on_failure: Literal["keep", "cleanup"] = "keep"
    base_dir: str = "."

    @property
    def setup_hook(self) -> HookSpec | None:
        """The command run in the fresh workspace before the agent: ``setup``, else
        ``hooks.before_each``, else ``hooks.before_all`` (each case has its own workspace)."""
        hooks = self.hooks or Hooks()
        return next((h for h in (self.setup, hooks.before_each, hooks.before_all)
                     if h is not None and h.command), None)

    def resolve(self, path: str) -> str:
        return str((Path(self.base_dir) / path).resolve())


def parse_workspace(raw: Any, base_dir: str, where: str) -> WorkspaceSpec | None:
    """The ``workspace:`` mapping of an eval file (``None`` when absent)."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ConfigError("must be a mapping (template, repos, hooks)", where, "workspace")
    try:
        spec = WorkspaceSpec.model_validate({**raw, "base_dir": base_dir})
    except ValidationError as err:
        e = err.errors()[0]
        field = ".".join(str(p) for p in ("workspace", *e.get("loc", ())))
        raise ConfigError(describe_error(e), where, field) from None
    if spec.template and not Path(spec.resolve(spec.template)).is_dir():
        raise ConfigError(f"template folder {spec.template!r} not found (relative to "
                          f"{base_dir})", where, "workspace.template")
    return spec
