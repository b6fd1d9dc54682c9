"""Finding things on disk: repo root, eval files from paths/globs, upward searches, .env."""
from __future__ import annotations

import glob
import os
from functools import lru_cache
from pathlib import Path

from providers.errors import ConfigError

EVAL_SUFFIXES = (".yaml", ".yml", ".jsonl")
NOT_EVAL_NAMES = {"targets.yaml", "targets.yml", "config.yaml", "config.yml", ".agentv.yaml"}


@lru_cache(maxsize=256)
def repo_root(start: str | None = None) -> Path:
    """The nearest enclosing git root of ``start``, else the current directory."""
    here = Path(start or os.getcwd()).resolve()
    for d in (here, *here.parents):
        if (d / ".git").exists():
            return d
    return Path(os.getcwd()).resolve()


def upward_dirs(start: Path) -> list[Path]:
    """``start`` and its parents up to (and including) the repo root."""
    start = start.resolve()
    root = repo_root(str(start))
    dirs = []
    for d in (start, *start.parents):
        dirs.append(d)
        if d == root:
            break
    return dirs


def find_upward(start: Path, names: tuple[str, ...]) -> Path | None:
    for d in upward_dirs(start):
        for name in names:
            candidate = d / name
            if candidate.is_file():
                return candidate
    return None


def _looks_like_eval(path: Path) -> bool:
    if path.suffix == ".jsonl":
        return True
    if path.name in NOT_EVAL_NAMES or path.parent.name == ".agentv":
        return False
    try:
        head = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "evalcases" in head or "agentv-eval-v2" in head


def expand_eval_paths(args: list[str]) -> list[Path]:
    """Files, directories (recursive) and globs → eval files, deduplicated and sorted."""
    found: set[Path] = set()
    for arg in args:
        matches = [Path(m) for m in glob.glob(arg, recursive=True)] if glob.has_magic(arg) \
            else ([Path(arg)] if Path(arg).exists() else [])
        if not matches:
            raise ConfigError("no eval file matches this path", arg)
        for m in matches:
            if m.is_dir():
                found.update(p.resolve() for p in m.rglob("*")
                             if p.suffix in EVAL_SUFFIXES and p.is_file() and _looks_like_eval(p))
            elif m.is_file() and (not glob.has_magic(arg) or _looks_like_eval(m)):
                found.add(m.resolve())
    if not found:
        raise ConfigError("no eval files found", " ".join(args))
    return sorted(found)


def load_env_files(eval_files: list[Path]) -> list[Path]:
    """Load the first .env from each eval file's dir upward, then repo root, then cwd.

    Real environment variables win (override=False). Returns the files loaded."""
    from dotenv import dotenv_values, load_dotenv

    from providers.environment import mark_dotenv

    candidates: list[Path] = []
    for f in eval_files:
        hit = find_upward(f.parent, (".env",))
        if hit:
            candidates.append(hit)
    candidates += [repo_root() / ".env", Path.cwd() / ".env"]
    loaded: list[Path] = []
    for c in candidates:
        c = c.resolve()
        if c.is_file() and c not in loaded:
            mark_dotenv(k for k in dotenv_values(c) if k not in os.environ)
            load_dotenv(c, override=False)
            loaded.append(c)
    return loaded
