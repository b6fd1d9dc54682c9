"""A 4.x eval file → ``EvalSuite``: its top-level keys, its tests (inline, ``file://``
references, or ``tests: PATH`` naming a YAML list, a JSONL file or a directory of
``<case>/case.yaml``), each lowered by ``tasks.load.agentv4.cases``."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from agentv.providers.errors import ConfigError, ErrorCollector, unknown_key
from agentv.tasks.load.agentv4.assertions import AssertionBuilder
from agentv.tasks.load.agentv4.cases import SuiteDefaults, parse_test
from agentv.tasks.load.agentv4.templating import interpolate_env
from agentv.tasks.load.agentv4.workspace import workspace_of
from agentv.tasks.load.boundary import Boundary
from agentv.tasks.load.eval_case import EvalSuite, file_tags
from agentv.tasks.load.gates import parse_gates
from agentv.tasks.load.generation import FORMAT
from agentv.tasks.load.messages import guideline_patterns
from agentv.tasks.load.yamlsrc import LineDict, LineList, load_yaml_file

SUITE_KEYS = {"tests", "name", "description", "category", "version", "author", "tags",
              "license", "requires", "metadata", "governance", "execution", "target",
              "workspace", "assertions", "assert", "input", "input_files", "$schema"}
EXECUTION_KEYS = {"target", "threshold", "fail_on_error", "skip_defaults", "workers", "cache",
                  "trials", "budget_usd", "targets", "fail_under", "min_pass_rate"}
IGNORED = {"targets": "a target matrix in the file is not run by agentv; use "
           "--target (ignored)", "preprocessors": "preprocessors are not run by agentv (ignored)",
           "cache": "the file's cache setting is not applied; use --cache (ignored)",
           "budget_usd": "a budget in the file is not applied (ignored)"}


def category_of(path: Path) -> str:
    """AgentV's category: the file's folders relative to the current directory, without
    ``evals`` folders (``Uncategorized`` at the top)."""
    try:
        rel = Path(os.path.relpath(path, Path.cwd()))
    except ValueError:
        rel = Path(path.name)
    dirs = [d for d in rel.parts[:-1] if d != "evals"]
    return "/".join(dirs) if dirs else "Uncategorized"


def suite_name(data: dict, path: Path) -> str:
    name = data.get("name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    stem = path.name
    for suffix in (".eval.yaml", ".eval.yml", ".yaml", ".yml"):
        if stem.lower().endswith(suffix):
            return stem[: -len(suffix)] or "eval"
    return stem or "eval"


def load_v4_suite(path: Path, data: LineDict, warn: Callable[[str], None],
                  boundary: Boundary) -> EvalSuite:
    spath = str(path)
    data = interpolate_env(data, os.environ)
    _warn_keys(data, spath, warn)
    execution = data.get("execution") or {}
    if not isinstance(execution, dict):
        raise ConfigError("must be a mapping", f"{spath}:{data.line_of('execution')}",
                          "execution")
    for key in execution:
        at = f"{spath}:{execution.line_of(key) if isinstance(execution, LineDict) else 1}"
        if key in IGNORED:
            warn(f"{at}: execution.{key}: {IGNORED[key]}")
        elif key not in EXECUTION_KEYS:
            unknown_key(key, "execution", EXECUTION_KEYS, at, warn)  # a near miss: an error
    builder = AssertionBuilder(spath, path.parent, warn, boundary.check)
    name = suite_name(data, path)
    defaults = SuiteDefaults(
        path=spath, name=name, category=str(data.get("category") or category_of(path)),
        base_dir=path.parent, patterns=guideline_patterns(str(path.parent)), builder=builder,
        boundary=boundary,
        input=data.get("input"), input_files=data.get("input_files"),
        assertions=builder.build_list(data.get("assertions", data.get("assert")),
                                      data.line_of("assertions")),
        metadata=dict(data["metadata"]) if isinstance(data.get("metadata"), dict) else {})
    suite = EvalSuite(path=spath, description=str(data.get("description") or ""),
                      dataset=name, has_schema=True, format=FORMAT, boundary=boundary)
    errors = ErrorCollector()  # the file's keys and every test: all errors at once
    parts = {"target": lambda: _suite_target(data, execution, spath),
             "trials": lambda: _trials(execution, spath),
             "threshold": lambda: _suite_threshold(execution, spath),
             "workers": lambda: _whole(execution.get("workers"), 1, 50, spath, execution,
                                       "workers"),
             "gates": lambda: parse_gates({k: v for k, v in execution.items() if k in
                                           ("fail_on_error", "fail_under", "min_pass_rate")},
                                          spath, getattr(execution, "line_of", lambda _k: None)),
             "workspace": lambda: workspace_of(data, spath, str(path.parent), warn, boundary),
             "tags": lambda: file_tags(data.get("tags"), f"{spath}:{data.line_of('tags')}")}
    for attr, part in parts.items():
        with errors.check():
            value = part()
            if hasattr(suite, attr):
                setattr(suite, attr, value)
    defaults.workspace = suite.workspace
    with errors.check():
        suite.cases = _cases(data, path, defaults, warn)
    errors.raise_any()
    return suite


def _warn_keys(data: LineDict, spath: str, warn) -> None:
    for key in data:
        at = f"{spath}:{data.line_of(key)}"
        if key in IGNORED:
            warn(f"{at}: {key}: {IGNORED[key]}")
        elif key not in SUITE_KEYS:
            unknown_key(key, "eval file", SUITE_KEYS, at, warn)  # a near miss: an error


def _suite_target(data: dict, execution: dict, spath: str) -> str | None:
    value = execution.get("target", data.get("target"))
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError("must be a target name (a string)", f"{spath}:1", "target")
    return value.strip()


def _trials(execution: dict, spath: str) -> int | None:
    """``execution.trials: {count: N}`` (AgentV 4.x) or a plain number."""
    trials = execution.get("trials")
    count = trials.get("count") if isinstance(trials, dict) else trials
    return _whole(count, 1, 1000, spath, execution, "trials")


def _whole(value: Any, low: int, high: int, spath: str, execution: dict,
           key: str) -> int | None:
    """A whole number from ``low`` to ``high`` (``'8'``, text, is an error), or absent."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        line = execution.line_of(key) if isinstance(execution, LineDict) else 1
        shown = f"text {value!r} (write it without quotes)" if isinstance(value, str) \
            else repr(value)
        raise ConfigError(f"must be a whole number from {low} to {high}, got {shown}",
                          f"{spath}:{line}", key)
    return value



def _suite_threshold(execution: dict, spath: str) -> float | None:
    value = execution.get("threshold")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        line = execution.line_of("threshold") if isinstance(execution, LineDict) else 1
        raise ConfigError(f"must be a number from 0 to 1, got {value!r}", f"{spath}:{line}",
                          "threshold")
    return float(value)


def _cases(data: LineDict, path: Path, defaults: SuiteDefaults, warn) -> list:
    raw = data.get("tests")
    line = data.line_of("tests")
    if isinstance(raw, str):
        entries = external_tests(path.parent / raw, f"{path}:{line}", defaults.boundary, raw)
    elif isinstance(raw, list):
        entries = []
        for i, item in enumerate(raw):
            item_line = raw.line_of(i) if isinstance(raw, LineList) else line
            if isinstance(item, str) and item.startswith("file://"):
                entries.extend(external_tests(path.parent / item[len("file://"):],
                                              f"{path}:{item_line}", defaults.boundary, item))
            else:
                entries.append((item, str(path), item_line))
    else:
        raise ConfigError("must be a list of tests or the path of a tests file or folder",
                          f"{path}:{line}", "tests")
    cases: list = []
    seen: dict[str, str] = {}
    errors = ErrorCollector()  # every test's errors at once
    for item, where, item_line in entries:
        with errors.check():
            case = parse_test(item, item_line, defaults, warn, where)
            if case is None:
                continue
            if case.id in seen:
                raise ConfigError(f"duplicate test id '{case.id}' (first at {seen[case.id]})",
                                  f"{where}:{item_line}", "id")
            seen[case.id] = f"{where}:{item_line}"
            cases.append(case)
    errors.raise_any()
    return cases


def external_tests(target: Path, where: str, boundary: Boundary,
                   shown: str) -> list[tuple[Any, str, int]]:
    """(raw test, file, line) from a YAML list, a JSONL file or a folder of case.yaml, inside
    the suite's boundary (a case file of a folder too)."""
    target = boundary.check(target, where, "tests", shown)
    if target.is_dir():
        found = []
        for sub in sorted(p for p in target.iterdir() if p.is_dir()):
            case_file = next((sub / n for n in ("case.yaml", "case.yml")
                              if (sub / n).is_file()), None)
            if case_file is None:
                continue
            case_file = boundary.check(case_file, where, "tests", str(case_file))
            raw = interpolate_env(load_yaml_file(case_file), os.environ)
            if not isinstance(raw, dict):
                raise ConfigError("a case file must be a mapping", f"{case_file}:1")
            if raw.get("id") is None:
                raw["id"] = sub.name
            found.append((raw, str(case_file), getattr(raw, "line", 1)))
        return found
    if not target.is_file():
        raise ConfigError(f"tests file not found: {target}", where, "tests")
    if target.suffix == ".jsonl":
        from agentv.tasks.load.jsonl import read_cases
        cases, lines = read_cases(target)
        return [(interpolate_env(obj, os.environ), str(target), n)
                for obj, n in zip(cases, lines)]
    if target.suffix not in (".yaml", ".yml"):
        raise ConfigError(f"unsupported tests file {target.name} (.yaml, .yml or .jsonl)",
                          where, "tests")
    raw = interpolate_env(load_yaml_file(target), os.environ)
    if isinstance(raw, dict) and isinstance(raw.get("tests"), list):
        raw = raw["tests"]
    if not isinstance(raw, list):
        raise ConfigError("a tests file must hold a list of tests", f"{target}:1", "tests")
    return [(item, str(target), raw.line_of(i) if isinstance(raw, LineList) else 1)
            for i, item in enumerate(raw)]


def lowered(path: Path, data: Any, lines: list[int] | None, warn: Callable[[str], None],
            boundary: Boundary) -> EvalSuite | None:
    """The file as a 4.x suite, or None when it is a v2 file: a YAML mapping with ``tests``, or
    a JSONL file whose lines are 4.x tests (its ``<name>.yaml`` sidecar holds the suite keys)."""
    from agentv.tasks.load.generation import is_v4_cases, is_v4_data
    if lines is None:
        return load_v4_suite(path, data, warn, boundary) if is_v4_data(data) else None
    if not is_v4_cases(data.get("evalcases") or []):
        return None
    suite = LineDict({k: v for k, v in data.items() if k not in ("$schema", "evalcases")})
    suite.line, suite.key_lines = 1, {k: 1 for k in suite}
    suite["tests"] = data["evalcases"]
    return load_v4_suite(path, suite, warn, boundary)
