"""Eval files (agentv-eval-v2 YAML, JSONL datasets + sidecar) → ``EvalSuite`` of ``EvalCase``s;
AgentV 4.x files (``tests:``) are lowered into the same by ``tasks.load.agentv4``.

Unknown keys produce warnings naming file:line; wrong types, missing required keys,
duplicate ids and missing referenced files are ``ConfigError``s naming file:line and field.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from agentv.evaluators.base import Evaluator
from agentv.evaluators.registry import build_evaluators
from agentv.providers.agents.workspace_spec import parse_workspace
from agentv.providers.errors import ConfigError, ErrorCollector
from agentv.tasks.load.boundary import Boundary, check_workspace
from agentv.tasks.load.eval_case import EvalCase, EvalSuite, check_expected, file_tags  # noqa: F401 - this module's API
from agentv.tasks.load.file_fields import (  # noqa: F401 - MAX_TRIALS: this module's API
    CASE_KEYS,
    FILE_KEYS,
    MAX_TRIALS,
    execution_field,
    mapping_field,
    str_field,
    target_field,
    trials_field,
    warn_unknown,
)
from agentv.tasks.load.gates import parse_gates
from agentv.tasks.load.jsonl import EVAL_SCHEMA, load_jsonl
from agentv.tasks.load.messages import guideline_patterns, parse_messages
from agentv.tasks.load.yamlsrc import LineDict, LineList, load_yaml_file


def _evaluator_list(obj: dict, key: str, path: str, base_dir: str, warn,
                    boundary: Boundary) -> list[Evaluator]:
    raw = obj.get(key)
    if raw is None:
        return []
    if isinstance(raw, str):
        raw = [{"type": raw}]
    line = obj.line_of(key) if isinstance(obj, LineDict) else 0
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list):
        raise ConfigError("must be a list of evaluators", f"{path}:{line}", key)
    line_of = (lambda i: f"{path}:{raw.line_of(i)}") if isinstance(raw, LineList) else None
    return build_evaluators(raw, base_dir=base_dir, where=f"{path}:{line}", warn=warn,
                            line_of=line_of, contain=boundary.check)


def default_evaluators(base_dir: str) -> list[Evaluator]:
    """With no evaluators configured, a case is scored by llm_judge with the default prompt."""
    from agentv.evaluators.llm_judge import LlmJudge
    return _AutoDefaults([LlmJudge(name="llm_judge", type="llm_judge", base_dir=base_dir)])


def _with_rubrics(rubrics: list[Any], evaluators: list[Evaluator], defaults: list[Evaluator],
                  base_dir: str, where: str, warn) -> list[Evaluator]:
    """AgentV's rule: case-level ``rubrics`` replace the default llm_judge and go in
    front of any explicitly configured evaluators."""
    from agentv.evaluators.rubric import rubric_evaluator_for
    explicit = [] if evaluators is defaults and getattr(defaults, "auto", False) else evaluators
    return [rubric_evaluator_for(rubrics, base_dir, where, warn), *explicit]


class _AutoDefaults(list):
    auto = True


@lru_cache(maxsize=64)
def _parent(path: str) -> Path:
    return Path(path).parent


@lru_cache(maxsize=64)
def _parent_text(path: str) -> str:
    return str(_parent(path))


def parse_case(raw: Any, path: str, line: int, suite: EvalSuite, defaults: list[Evaluator],
               warn: Callable[[str], None]) -> EvalCase:
    if not isinstance(raw, dict):
        raise ConfigError("an eval case must be a mapping", f"{path}:{line}")
    case_id = raw.get("id")
    if not isinstance(case_id, (str, int)) or isinstance(case_id, bool) or str(case_id) == "":
        raise ConfigError("required field missing or not a string", f"{path}:{line}", "id")
    base, base_dir = _parent(path), _parent_text(path)  # one string for the file's cases
    patterns = guideline_patterns(base_dir)
    boundary = suite.boundary or Boundary.for_suite(path)
    line_of = raw.line_of if isinstance(raw, LineDict) else (lambda _k: line)
    inputs_key = "input_messages" if "input_messages" in raw else "input"
    expected_key = "expected_messages" if "expected_messages" in raw else "expected_output"
    errors = ErrorCollector()  # the case's independent parts, every error at once
    inputs: list = []
    with errors.check():
        inputs = parse_messages(raw.get(inputs_key), base, path, line_of(inputs_key),
                                inputs_key, patterns, boundary)
        if not inputs:
            raise ConfigError("required field missing", f"{path}:{line}", "input_messages")
    execution: dict = {}
    with errors.check():
        execution = execution_field(raw, path, warn)
    evaluators = defaults
    with errors.check():
        evaluators = (_evaluator_list(execution, "evaluators", path, base_dir, warn, boundary)
                      or _evaluator_list(raw, "evaluators", path, base_dir, warn, boundary)
                      or defaults)
    rubrics = raw.get("rubrics") or []
    with errors.check():
        if not isinstance(rubrics, list):
            raise ConfigError("must be a list", f"{path}:{line_of('rubrics')}", "rubrics")
        if rubrics and not any(e.type == "rubric" for e in evaluators):
            evaluators = _with_rubrics(rubrics, evaluators, defaults, base_dir,
                                       f"{path}:{line_of('rubrics')}", warn)
    for check in (lambda: target_field(execution, path), lambda: trials_field(raw, path),
                  lambda: trials_field(execution, path), lambda: check_expected(
                      evaluators, raw.get(expected_key), f"{path}:{line}"),
                  lambda: warn_unknown(raw, CASE_KEYS, path, "eval case", warn)):
        with errors.check():
            check()
    errors.raise_any()
    target, ws_at = target_field(execution, path), f"{path}:{line_of('workspace')}"
    return EvalCase(
        id=str(case_id), file=path, line=line, dataset=suite.dataset,
        expected_outcome=str_field(raw, "expected_outcome" if "expected_outcome" in raw
                                    else "outcome", path),
        input_messages=inputs,
        expected_messages=parse_messages(raw.get(expected_key), base, path,
                                         line_of(expected_key), expected_key, patterns,
                                         boundary),
        conversation_id=str_field(raw, "conversation_id", path) or None,
        target=target, evaluators=evaluators, rubrics=list(rubrics),
        trials=trials_field(raw, path) or trials_field(execution, path),
        metadata=mapping_field(raw.get("metadata")),
        workspace=check_workspace(parse_workspace(raw.get("workspace"), base_dir, ws_at),
                                  boundary, ws_at) or suite.workspace,  # its own, else the file's
    )


def load_suite(path: str | Path, warn: Callable[[str], None] | None = None,
               allowed: tuple[Path, ...] = ()) -> EvalSuite:
    """``allowed``: folders beyond the suite's root its files may come from (the run's
    ``--allow-path`` and ``allowed_paths``; ``tasks.load.boundary``)."""
    p = Path(path)
    boundary = Boundary.for_suite(p, allowed)
    warnings: list[str] = []
    emit = warn or warnings.append
    if p.suffix == ".jsonl":
        data, lines = load_jsonl(p)
    else:
        data, lines = load_yaml_file(p, _streamed(p)), None
    from agentv.tasks.load.agentv4.suite import lowered  # AgentV 4.x files: the same plan
    v4 = lowered(p, data, lines, emit, boundary)
    if v4 is not None:
        v4.warnings = warnings
        return v4
    spath = str(p)
    fpath = (data.source if isinstance(data, LineDict) else None) or spath  # a JSONL sidecar
    if not isinstance(data, dict):
        raise ConfigError("an eval file must be a mapping with 'evalcases'", f"{spath}:1")
    suite = EvalSuite(path=spath, has_schema=data.get("$schema") == EVAL_SCHEMA,
                      warnings=warnings, boundary=boundary)
    if "$schema" in data and data["$schema"] != EVAL_SCHEMA:
        raise ConfigError(f"unexpected $schema {data['$schema']!r} for an eval file "
                          f"(expected {EVAL_SCHEMA})", f"{fpath}:{data.line_of('$schema')}",
                          "$schema")
    warn_unknown(data, FILE_KEYS, fpath, "eval file", emit)
    errors = ErrorCollector()  # the file's keys and every case: all errors at once
    with errors.check():
        _file_keys(suite, data, p, fpath, boundary)
    defaults = default_evaluators(str(p.parent))
    with errors.check():
        execution = execution_field(data, fpath, emit)
        defaults = (_evaluator_list(execution, "evaluators", fpath, str(p.parent), emit, boundary)
                    or _evaluator_list(data, "evaluators", fpath, str(p.parent), emit, boundary)
                    or _evaluator_list(data, "evaluator", fpath, str(p.parent), emit, boundary)
                    or defaults)
    raw_cases = data.get("evalcases")
    with errors.check():
        if not isinstance(raw_cases, list):
            line = data.line_of("evalcases") if "evalcases" in data else data.line
            raise ConfigError("must be a list of eval cases" if "evalcases" in data
                              else "required field missing", f"{spath}:{line}", "evalcases")
        suite.cases = _Cases(spath, suite, defaults, emit).of(p, raw_cases, lines)
    errors.raise_any()
    return suite


def _file_keys(suite: EvalSuite, data: LineDict, p: Path, fpath: str,
               boundary: Boundary) -> None:
    """The file-level keys: description, dataset, target, trials, gates, workspace, tags."""
    errors = ErrorCollector()
    with errors.check():
        suite.description = str_field(data, "description", fpath)
    with errors.check():
        suite.dataset = str_field(data, "dataset", fpath) or p.stem.removesuffix(".test")
    given = data.get("execution")
    execution: dict = given if isinstance(given, dict) else {}
    at = f"{fpath}:{getattr(data, 'line_of', lambda _k: 1)('workspace')}"
    parts = {"target": lambda: target_field(execution, fpath) or target_field(data, fpath),
             "trials": lambda: trials_field(data, fpath) or trials_field(execution, fpath),
             "gates": lambda: parse_gates(execution, fpath,
                                          getattr(execution, "line_of", lambda _k: None)),
             "workspace": lambda: check_workspace(
                 parse_workspace(data.get("workspace"), str(p.parent), at), boundary, at),
             "tags": lambda: file_tags(mapping_field(data.get("metadata")).get("tags"), fpath)}
    for name, part in parts.items():
        with errors.check():
            setattr(suite, name, part())
    errors.raise_any()


_LATER = object()  # a YAML file's case when its file-level keys are read (parsed after)
STREAM_BYTES = 8 << 20  # a file this large is read twice: its cases never all in memory


def _streamed(p: Path) -> Callable[[Any, int], object] | None:
    """A large YAML file's cases are parsed on a second read, each as the parser completes
    it; a smaller file is read once (1 s less CPU at 2,000 cases)."""
    return (lambda _raw, _line: _LATER) if p.stat().st_size > STREAM_BYTES else None


class _Cases:
    """An eval file's cases, each parsed and checked as it comes; every error at once."""

    def __init__(self, spath: str, suite: EvalSuite, defaults: list[Evaluator],
                 emit: Callable[[str], None]) -> None:
        self.spath, self.suite, self.defaults, self.emit = spath, suite, defaults, emit
        self.cases: list[EvalCase] = []
        self.seen: dict[str, int] = {}
        self.errors = ErrorCollector()

    def add(self, raw: Any, line: int) -> None:
        with self.errors.check():
            case = parse_case(raw, self.spath, line, self.suite, self.defaults, self.emit)
            if case.id in self.seen:
                raise ConfigError(f"duplicate eval case id '{case.id}' (first at line "
                                  f"{self.seen[case.id]})", f"{self.spath}:{line}", "id")
            self.seen[case.id] = line
            self.cases.append(case)

    def of(self, p: Path, raw_cases: list, lines: list[int] | None) -> list[EvalCase]:
        """A YAML file's cases read again, each parsed as soon as the parser completes it
        (the file's whole tree never exists); else the cases as read (JSONL, an alias)."""
        if raw_cases and raw_cases[0] is _LATER:
            load_yaml_file(p, self.add)
        else:
            for i, raw in enumerate(raw_cases):
                self.add(raw, lines[i] if lines else
                         raw_cases.line_of(i) if isinstance(raw_cases, LineList) else 0)
        self.errors.raise_any()
        return self.cases
