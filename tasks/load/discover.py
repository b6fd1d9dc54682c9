"""Finding things on disk: repo root, eval files from paths/globs, upward searches, .env."""
from __future__ import annotations

import glob
import os
from functools import lru_cache
from pathlib import Path

from agentv.providers.errors import ConfigError

EVAL_SUFFIXES = (".yaml", ".yml", ".jsonl")
NOT_EVAL_NAMES = {"targets.yaml", "targets.yml", "config.yaml", "config.yml", ".agentv.yaml"}


SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".agentv", ".tox",
             ".mypy_cache", ".pytest_cache", ".ruff_cache"}


@lru_cache(maxsize=256)
def find_repo(start: str | None = None) -> Path | None:
    """The nearest enclosing git root of ``start`` (or the current directory), if any."""
    here = Path(start or os.getcwd()).resolve()
    for d in (here, *here.parents):
        if (d / ".git").exists():
            return d
    return None


def repo_root(start: str | None = None) -> Path:
    """The nearest enclosing git root of ``start``, else the current directory."""
    return find_repo(start) or Path(os.getcwd()).resolve()


def upward_dirs(start: Path) -> list[Path]:
    """``start`` and its parents up to (and including) the repository root — or up to the
    filesystem root when ``start`` is not inside a repository."""
    start = start.resolve()
    root = find_repo(str(start))
    dirs = []
    for d in (start, *start.parents):
        dirs.append(d)
        if d == root:
            break
    return dirs


def walk_files(directory: Path, suffixes: tuple[str, ...]) -> list[Path]:
    """Files under ``directory`` with these suffixes, never descending into VCS, virtualenv,
    node_modules or ``.agentv`` output folders (``.agentv/targets.yaml`` and
    ``.agentv/config.yaml`` are kept)."""
    found: list[Path] = []
    for root, dirs, files in os.walk(directory):
        here = Path(root)
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS or d == ".agentv")
        agentv_dir = here.name == ".agentv"
        for name in sorted(files):
            path = here / name
            if path.suffix not in suffixes:
                continue
            if agentv_dir and name not in AGENTV_FILES:
                continue
            found.append(path)
        if agentv_dir:
            dirs[:] = []
    return found


AGENTV_FILES = {"targets.yaml", "targets.yml", "config.yaml", "config.yml"}


def find_upward(start: Path, names: tuple[str, ...]) -> Path | None:
    for d in upward_dirs(start):
        for name in names:
            candidate = d / name
            if candidate.is_file():
                return candidate
    return None


def _looks_like_eval(path: Path) -> bool:
    """Eval YAML, or a JSONL dataset — not a results file, not a sidecar."""
    from agentv.tasks.load.generation import has_v4_name, is_v4_tests_file, looks_v4_text
    if path.suffix == ".jsonl":  # a 4.x tests file runs through the suite naming it
        return _is_dataset(path) and not is_v4_tests_file(path)
    if path.name in NOT_EVAL_NAMES or path.parent.name == ".agentv":
        return False
    if any(path.with_suffix(s).is_file() for s in (".jsonl",)):
        return False  # the sidecar of a JSONL dataset: loaded with it
    try:
        head = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    if "evalcases" in head or "agentv-eval-v2" in head:
        return True
    # AgentV 4.x: *.eval.yaml / eval.yaml / EVAL.yaml, or under evals/, with a `tests:` key
    return looks_v4_text(head) and (has_v4_name(path) or path.parent.name == "evals")


def _is_dataset(path: Path) -> bool:
    """A JSONL dataset: its first line an eval case (an object with ``id``) — not results
    (AgentV's ``index.jsonl``, agentv's own), not a fixture or a transcript."""
    import json
    if _is_results(path):
        return False
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as fh:
            first = json.loads(fh.readline(65536) or "null")
    except (OSError, ValueError):
        return True  # a broken line: loading it names the line
    return isinstance(first, dict) and "id" in first and "test_id" not in first


def _is_results(path: Path) -> bool:
    """AgentV's recorded results (``*.baseline.jsonl``, agentv's own output) are not datasets."""
    if path.name.endswith((".baseline.jsonl", "-results.jsonl", ".results.jsonl")):
        return True
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as fh:
            first = fh.readline(65536)
    except OSError:
        return False
    return ('"candidate_answer"' in first or '"case_key"' in first
            or '"execution_status"' in first  # AgentV 4.x's index.jsonl
            or ('"test_id"' in first and '"score"' in first))


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
                found.update(p.resolve() for p in walk_files(m, EVAL_SUFFIXES)
                             if _looks_like_eval(p))
            elif m.is_file() and (not glob.has_magic(arg) or _looks_like_eval(m)):
                found.add(m.resolve())
    if not found:
        raise ConfigError("no eval files found", " ".join(args))
    return sorted(found)


def load_env_files(eval_files: list[Path]) -> list[Path]:
    """Load the first .env from each eval file's dir upward, then repo root, then cwd.

    Real environment variables win (override=False). Returns the files loaded. A name whose
    value is the file's (added now, or by an earlier run of this process) is ``.env``-only
    for this run's children."""
    from agentv.providers.process.environment import mark_dotenv
    from agentv.tasks.load.dotenv_file import read_env_file

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
            values = read_env_file(c)  # ConfigError: too large, not UTF-8, a NUL byte
            mark_dotenv(k for k, v in values.items() if k not in os.environ or os.environ[k] == v)
            for k, v in values.items():
                os.environ.setdefault(k, v)  # real environment variables win
            loaded.append(c)
    return loaded


TARGET_NAMES = ("targets.yaml", "targets.yml", ".agentv/targets.yaml", ".agentv/targets.yml")


def discover_targets(explicit: str | None, eval_files: list[Path]) -> Path | None:
    """``--targets`` (a file or a directory), else the nearest targets file above the first
    eval file (up to the repository root, or the filesystem root outside a repository),
    else the current directory."""
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
