"""The files an evaluator will read or run, as its config names them — judge prompt files,
code judges' and code-graders' scripts and ``cwd``, prompt scripts, composite aggregators'
scripts and prompts — for the loader's file boundary to check before anything is read.
Nothing here touches a file's content."""
from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, Callable, Iterator

from agentv.evaluators.base import Evaluator

# (path, where, field, the path as written) -> the resolved path, or ConfigError
PathCheck = Callable[[Path, str, str, str], Path]
SCRIPT_SUFFIXES = (".py", ".ts", ".js", ".mjs", ".cjs", ".mts", ".sh", ".rb", ".ps1", ".pl")
PROMPT_SUFFIXES = (".md", ".txt", ".prompt", ".j2", ".jinja")
Reference = tuple[str, str, Path]  # (field, as written, path)


def prompt_file(prompt: Any, base_dir: str) -> Path | None:
    """The file a ``prompt`` names (``load_prompt``'s rule), or None for inline text."""
    if not isinstance(prompt, str) or not prompt or "\n" in prompt or len(prompt) >= 512:
        return None
    path = Path(base_dir) / prompt
    return path if path.suffix in PROMPT_SUFFIXES or path.is_file() else None


def command_files(command: Any, cwd: Path) -> Iterator[tuple[str, Path]]:
    """The script files of a command (argv tokens ending like a script), relative to ``cwd``."""
    try:
        tokens = shlex.split(command) if isinstance(command, str) else list(command or [])
    except ValueError:
        return  # the command is reported unsplittable by check_references
    for token in map(str, tokens):
        if token.endswith(SCRIPT_SUFFIXES):
            yield token, cwd / token


def _script_refs(field: str, command: Any, base_dir: str, cwd: Any) -> Iterator[Reference]:
    base = Path(base_dir)
    if isinstance(cwd, str):
        yield "cwd", cwd, base / cwd
    run_in = base / cwd if isinstance(cwd, str) else base
    for shown, path in command_files(command, run_in):
        yield field, shown, path


def _prompt_refs(field: str, prompt: Any, base_dir: str) -> Iterator[Reference]:
    path = prompt_file(prompt, base_dir)
    if path is not None:
        yield field, str(prompt), path


def references(evaluator: Evaluator) -> list[Reference]:
    """Every file ``evaluator`` (not its members: they are checked as they are built) names."""
    base = evaluator.base_dir
    found: list[Reference] = [*_prompt_refs("prompt", getattr(evaluator, "prompt", None), base)]
    script_prompt = getattr(getattr(evaluator, "prompt", None), "command", None)
    if script_prompt is not None:  # llm-grader's {command: [...]}: runs in the eval's folder
        found += _script_refs("prompt.command", script_prompt, base, None)
    script = getattr(evaluator, "script", None)  # a code judge's (4.x spells it `command`)
    if script is not None:
        found += _script_refs(getattr(evaluator, "command_key", "script"), script, base,
                              getattr(evaluator, "cwd", None))
    aggregator = getattr(evaluator, "aggregator", None)
    if getattr(aggregator, "path", None):
        found += _script_refs("aggregator.path", aggregator.path, base,  # type: ignore[union-attr]
                              getattr(aggregator, "cwd", None))
    found += _prompt_refs("aggregator.prompt", getattr(aggregator, "prompt", None), base)
    return found


def check_contained(evaluator: Evaluator, where: str, contain: PathCheck | None) -> None:
    """Each file ``evaluator`` names passes ``contain`` (the suite's boundary)."""
    if contain is None:
        return
    for field, shown, path in references(evaluator):
        contain(path, where, field, shown)
