"""The suite's file boundary: every file a suite makes agentv read, run or copy — file blocks
(v2 ``type: file``, AgentV 4.x ``input_files``), ``file://`` tests and ``tests: PATH``, judge
prompt files, code judges' and code-graders' scripts and ``cwd``, custom assertion scripts,
workspace templates and local ``repos`` — resolves (symlinks followed) inside the suite's root
or a folder the user allowed (``--allow-path DIR``, ``allowed_paths`` in
``.agentv/config.yaml``). Anything else is a ``ConfigError`` naming file:line and field, when
the eval file loads: before any case runs, before the file is read.

The suite's root: the git repository holding the eval file (the nearest folder above it with
``.git``). Outside a repository (a project unpacked without git): the current folder when it
holds the eval file — the project agentv is run in — unless that is the home folder or ``/``;
else the nearest folder above the eval file holding an ``.agentv/`` folder (not the home
folder, whose ``.agentv/`` is agentv's own); else the eval file's folder.

The targets file is not bounded: it names the commands agentv runs, so it is the user's own
code (review it as such), not suite data.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from agentv.providers.errors import ConfigError
from agentv.tasks.load.discover import find_repo

HINT = "allow it with --allow-path DIR or allowed_paths in .agentv/config.yaml"


def agentv_home() -> Path:
    return Path(os.environ.get("AGENTV_HOME") or Path.home() / ".agentv")


def suite_root(eval_file: str | Path) -> Path:
    """The suite's root (see the module docstring)."""
    here = Path(eval_file).resolve().parent
    repo = find_repo(str(here))
    if repo is not None:
        return repo
    cwd = Path.cwd().resolve()
    if here.is_relative_to(cwd) and cwd not in (Path.home().resolve(), Path(cwd.anchor)):
        return cwd
    home = agentv_home().resolve()
    for folder in (here, *here.parents):
        marker = folder / ".agentv"
        if folder != folder.parent and marker.is_dir() and marker.resolve() != home:
            return folder
    return here


@dataclass(frozen=True)
class Boundary:
    """Where one suite may read: its root and the folders the user allowed (resolved)."""
    root: Path
    allowed: tuple[Path, ...] = ()

    @classmethod
    def for_suite(cls, eval_file: str | Path, allowed: Iterable[Path] = ()) -> Boundary:
        return cls(suite_root(eval_file), tuple(allowed))

    def contains(self, resolved: Path) -> bool:
        return any(resolved.is_relative_to(r) for r in (self.root, *self.allowed))

    def check(self, path: str | Path, where: str | None, field: str | None,
              shown: str | None = None) -> Path:
        """``path`` resolved (symlinks followed) when inside, else ConfigError."""
        try:
            resolved = Path(path).resolve()
        except (OSError, RuntimeError) as err:  # a symlink loop
            raise ConfigError(f"cannot resolve path '{shown or path}' ({err})", where,
                              field) from None
        if not self.contains(resolved):
            raise ConfigError(f"path '{shown or path}' is outside the suite's root "
                              f"{self.root} ({HINT})", where, field)
        return resolved


def allowed_roots(cli: Iterable[str] = (), cwd: str | Path | None = None) -> tuple[Path, ...]:
    """The folders the user allowed: ``--allow-path`` (already checked by the options), then
    ``allowed_paths`` of the run's ``.agentv/config.yaml`` (relative to the folder holding
    ``.agentv/``; ``~`` expanded)."""
    from agentv.tasks.load.config_file import load_config, run_config_path
    roots = [Path(p).resolve() for p in cli]
    path = run_config_path(cwd)
    config = load_config(path) if path is not None else None
    base = path.parent.parent if path is not None else Path.cwd()
    for entry in (config.allowed_paths or []) if config is not None else []:
        roots.append((base / Path(entry).expanduser()).resolve())
    return tuple(dict.fromkeys(roots))


def check_allow_paths(value: Any) -> list[str]:
    """``--allow-path``: existing files or folders, kept as absolute paths."""
    items = [] if value is None else [value] if isinstance(value, (str, Path)) else value
    if not isinstance(items, (list, tuple)):
        raise ConfigError(f"must be a folder (or a list of folders), got {value!r}", None,
                          "--allow-path")
    out = []
    for item in items:
        if not isinstance(item, (str, Path)) or not str(item).strip():
            raise ConfigError(f"must be a folder, got {item!r}", None, "--allow-path")
        path = Path(str(item).strip()).expanduser()
        if not path.exists():
            raise ConfigError(f"no such file or folder: {item}", None, "--allow-path")
        out.append(str(path.resolve()))
    return list(dict.fromkeys(out))


def check_workspace(spec: Any, boundary: Boundary, where: str) -> Any:
    """A ``WorkspaceSpec``'s own paths inside the boundary: the template copied into each
    workspace, a local ``repos`` source cloned into it, a setup hook's ``cwd``."""
    if spec is None:
        return spec
    if spec.template:
        boundary.check(spec.resolve(spec.template), where, "workspace.template", spec.template)
    for repo in spec.repos:
        if Path(spec.resolve(repo.repo)).exists():
            boundary.check(spec.resolve(repo.repo), where, "workspace.repos.repo", repo.repo)
    hook = spec.setup_hook
    if hook is not None and hook.cwd:
        boundary.check(spec.resolve(hook.cwd), where, "workspace.setup.cwd", hook.cwd)
    return spec
