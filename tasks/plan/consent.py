"""Consent made visible at validate time (issue #38): what a suite lets the sandbox do beyond
its defaults, each a warning of ``agentv validate`` and ``agentv eval`` (an error with
``--strict``), said once per place:

* a readable boundary widened by the run's own ``.agentv/config.yaml`` (``allowed_paths``;
  ``--allow-path`` is the user's own flag, not a suite's doing);
* an inline script: a code judge, code grader or workspace hook whose command carries its
  code (``python3 -c …``, ``sh -c …``, ``node -e …``) rather than naming a file to review;
* a workspace template holding a symlink that leads outside it (copied as a link).

The run's summary names the same things (``flows.artifacts.sandbox_notes``)."""
from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any, Iterable, Iterator

from agentv.providers.process.programs import INTERPRETERS, SHELL, SHELLS, Interpreter
from agentv.tasks.load.conversation import every_evaluator

TEMPLATE_WALK_MAX = 5000  # entries of a workspace template looked at (the overlay's cap)


def consent_warnings(suites: Iterable[Any], allowed: Iterable[Path] = (),
                     cli_allowed: Iterable[str] = ()) -> list[str]:
    """One line per consent item of ``suites``, in file order, each once; ``allowed``: the
    run's readable roots beyond the suites' (``boundary.allowed_roots``), ``cli_allowed``
    those of them the user gave as ``--allow-path``."""
    found: dict[Any, str] = {line: line for line in _config_widened(allowed, cli_allowed)}
    for suite in suites:
        for case in suite.cases:  # a suite's defaults and workspace: said at its first case
            for field, command, shown in _inline_scripts(case):
                found.setdefault((case.file, str(command)), (
                    f"{case.where}: {field}: an inline script ({shown}) runs for its cases "
                    "(in the sandbox; put it in a file to review it)"))
            template = _template(case)
            if template is not None and template not in found:
                found[template] = "\n".join(_template_links(case, template))
    return [line for text in found.values() for line in text.splitlines()]


def user_scripts(suites: Iterable[Any]) -> list[str]:
    """The user's programs a run starts besides its targets — code judges and graders
    (members included) and workspace hooks — each once, with how many cases run it (what a
    ``--dry-run``, whose targets and judges are the mock, still runs)."""
    counts: dict[str, int] = {}
    for suite in suites:
        for case in suite.cases:
            commands = [command for index, evaluator in enumerate(every_evaluator(case))
                        for _, command in _commands(evaluator, f"evaluators[{index}]")]
            hook = case.workspace.setup_hook if case.workspace is not None else None
            commands += [hook.command] if hook is not None else []
            for command in dict.fromkeys(map(_shown, commands)):
                counts[command] = counts.get(command, 0) + 1
    return [f"{command} ({n} case(s))" for command, n in counts.items()]


def _shown(command: Any) -> str:
    text = command if isinstance(command, str) else shlex.join(map(str, command))
    return text if len(text) <= 80 else text[:77] + "..."


def _config_widened(allowed: Iterable[Path], cli_allowed: Iterable[str]) -> list[str]:
    from agentv.tasks.load.config_file import run_config_path
    own = {str(Path(p).resolve()) for p in cli_allowed}
    widened = [str(root) for root in allowed if str(root) not in own]
    path = run_config_path(None) if widened else None
    if path is None:
        return []
    line = _line_of(path, "allowed_paths")
    return [f"{path}:{line}: allowed_paths: widens the readable boundary beyond the suites' "
            f"roots to {root} (every program run for a case can read it)" for root in widened]


def _line_of(path: Path, key: str) -> int:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return 1
    return next((n for n, text in enumerate(lines, 1) if text.lstrip().startswith(key)), 1)


def _inline_scripts(case: Any) -> Iterator[tuple[str, Any, str]]:
    """(field, command, "python3 -c") of each inline script a case runs."""
    for index, evaluator in enumerate(every_evaluator(case)):
        for field, command in _commands(evaluator, f"evaluators[{index}]"):
            shown = inline_code(command)
            if shown:
                yield field, command, shown
    hook = case.workspace.setup_hook if case.workspace is not None else None
    shown = inline_code(hook.command) if hook is not None else None
    if hook is not None and shown:
        yield "workspace.setup", hook.command, shown


def _commands(evaluator: Any, field: str) -> Iterator[tuple[str, Any]]:
    """The scripts of an evaluator and of its members (composites, aggregators)."""
    script = getattr(evaluator, "script", None)
    if script:
        yield f"{field}.script", script
    for name in ("evaluators", "members", "assertions"):
        members = getattr(evaluator, name, None)
        if isinstance(members, (list, tuple)):
            for index, member in enumerate(members):
                yield from _commands(member, f"{field}.{name}[{index}]")


def inline_code(command: Any) -> str | None:
    """``"python3 -c"`` when ``command`` (argv, or a command line) runs code given in its own
    arguments, else None."""
    argv = shlex.split(command) if isinstance(command, str) else list(command or [])
    if not argv:
        return None
    name = os.path.basename(str(argv[0]))
    spec = SHELL if name in SHELLS else next(
        (spec for pattern, spec in INTERPRETERS if pattern.match(name)), None)
    if spec is None:
        return None
    flag = _code_flag(argv[1:], spec)
    return f"{name} {flag}" if flag else None


def _code_flag(args: list[Any], spec: Interpreter) -> str | None:
    letters = spec.code + spec.script
    for arg in map(str, args):
        if arg in ("--", "-") or not arg.startswith("-"):
            return "PROGRAM" if spec.first_is_code and not _has_file(args, spec) else None
        if arg.split("=", 1)[0] in spec.long_code:
            return arg.split("=", 1)[0]
        if not arg.startswith("--") and any(letter in letters for letter in arg[1:]):
            return arg
    return None


def _has_file(args: list[Any], spec: Interpreter) -> bool:
    return any(str(a).startswith("-") and any(c in spec.program_file for c in str(a)[1:])
               for a in args if spec.program_file)


def _template(case: Any) -> Path | None:
    spec = case.workspace
    if spec is None or not spec.template:
        return None
    top = Path(spec.resolve(spec.template))
    return top if top.is_dir() else None


def _template_links(case: Any, top: Path) -> list[str]:
    root, found, seen = str(top.resolve()), [], 0
    for folder, dirs, files in os.walk(top):
        for name in dirs + files:
            seen += 1
            path = os.path.join(folder, name)
            if os.path.islink(path) and not _inside(os.path.realpath(path), root):
                found.append(f"{case.where}: workspace.template: symlink "
                             f"{os.path.relpath(path, top)} leads outside the template to "
                             f"{os.path.realpath(path)} (copied as a link)")
        if seen > TEMPLATE_WALK_MAX:
            break
    return found


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")
