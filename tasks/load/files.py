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
from agentv.providers.errors import ConfigError, ErrorCollector, unknown_key
from agentv.tasks.load.boundary import Boundary, check_workspace
from agentv.tasks.load.eval_case import EvalCase, EvalSuite, check_expected, file_tags  # noqa: F401 - this module's API
from agentv.tasks.load.gates import parse_gates
from agentv.tasks.load.jsonl import EVAL_SCHEMA, load_jsonl
from agentv.tasks.load.messages import guideline_patterns, parse_messages
from agentv.tasks.load.yamlsrc import LineDict, LineList, load_yaml_file

FILE_KEYS = {"$schema", "description", "dataset", "target", "execution", "evalcases", "trials",
             "metadata", "evaluator", "evaluators", "workspace"}
CASE_KEYS = {"id", "expected_outcome", "outcome", "input_messages", "input", "expected_messages",
             "expected_output", "conversation_id", "execution", "evaluators", "rubrics",
             "description", "metadata", "trials", "note", "workspace"}
EXECUTION_KEYS = {"target", "evaluators", "trials", "fail_under", "min_pass_rate",
                  "fail_on_error"}
MAX_TRIALS = 1000


def _warn_unknown(obj: dict, allowed: set[str], path: str, what: str, warn) -> None:
    for key in obj:
        if key not in allowed:
            line = obj.line_of(key) if isinstance(obj, LineDict) else 0
            unknown_key(key, what, allowed, f"{path}:{line}", warn)  # a near miss: an error


def _str_field(obj: dict, key: str, path: str, default: str = "") -> str:
    value = obj.get(key, default)
    if value is None:
        return default
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        line = obj.line_of(key) if isinstance(obj, LineDict) else 0
        raise ConfigError(f"must be a string, got {type(value).__name__}", f"{path}:{line}", key)
    return str(value)


def _trials(obj: dict, path: str) -> int | None:
    value = obj.get("trials")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_TRIALS:
        line = obj.line_of("trials") if isinstance(obj, LineDict) else 0
        raise ConfigError(f"must be a whole number from 1 to {MAX_TRIALS}, got {value!r}",
                          f"{path}:{line}", "trials")
    return value


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _target(obj: dict, path: str) -> str | None:
    """``target`` / ``execution.target``: a target name (a string), or absent."""
    value = obj.get("target")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        line = obj.line_of("target") if isinstance(obj, LineDict) else 0
        shown = ("a list" if isinstance(value, list) else "a mapping" if isinstance(value, dict)
                 else repr(value))
        raise ConfigError(f"must be a target name (a string), got {shown}", f"{path}:{line}",
                          "target")
    return value


def _execution(obj: dict, path: str, warn) -> dict:
    execution = obj.get("execution") or {}
    if not isinstance(execution, dict):
        line = obj.line_of("execution") if isinstance(obj, LineDict) else 0
        raise ConfigError("must be a mapping", f"{path}:{line}", "execution")
    _warn_unknown(execution, EXECUTION_KEYS, path, "execution", warn)
    return execution


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
        execution = _execution(raw, path, warn)
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
    for check in (lambda: _target(execution, path), lambda: _trials(raw, path),
                  lambda: _trials(execution, path), lambda: check_expected(
                      evaluators, raw.get(expected_key), f"{path}:{line}"),
                  lambda: _warn_unknown(raw, CASE_KEYS, path, "eval case", warn)):
        with errors.check():
            check()
    errors.raise_any()
    target, ws_at = _target(execution, path), f"{path}:{line_of('workspace')}"
    return EvalCase(
        id=str(case_id), file=path, line=line, dataset=suite.dataset,
        expected_outcome=_str_field(raw, "expected_outcome" if "expected_outcome" in raw
                                    else "outcome", path),
        input_messages=inputs,
        expected_messages=parse_messages(raw.get(expected_key), base, path,
                                         line_of(expected_key), expected_key, patterns,
                                         boundary),
        conversation_id=_str_field(raw, "conversation_id", path) or None,
        target=target, evaluators=evaluators, rubrics=list(rubrics),
        trials=_trials(raw, path) or _trials(execution, path),
        metadata=_mapping(raw.get("metadata")),
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
        data, lines = load_yaml_file(p, _later if _streamed(p) else None), None
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
    _warn_unknown(data, FILE_KEYS, fpath, "eval file", emit)
    errors = ErrorCollector()  # the file's keys and every case: all errors at once
    with errors.check():
        _file_keys(suite, data, p, fpath, boundary)
    defaults = default_evaluators(str(p.parent))
    with errors.check():
        execution = _execution(data, fpath, emit)
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
        suite.description = _str_field(data, "description", fpath)
    with errors.check():
        suite.dataset = _str_field(data, "dataset", fpath) or p.stem.removesuffix(".test")
    given = data.get("execution")
    execution: dict = given if isinstance(given, dict) else {}
    at = f"{fpath}:{getattr(data, 'line_of', lambda _k: 1)('workspace')}"
    parts = {"target": lambda: _target(execution, fpath) or _target(data, fpath),
             "trials": lambda: _trials(data, fpath) or _trials(execution, fpath),
             "gates": lambda: parse_gates(execution, fpath,
                                          getattr(execution, "line_of", lambda _k: None)),
             "workspace": lambda: check_workspace(
                 parse_workspace(data.get("workspace"), str(p.parent), at), boundary, at),
             "tags": lambda: file_tags(_mapping(data.get("metadata")).get("tags"), fpath)}
    for name, part in parts.items():
        with errors.check():
            setattr(suite, name, part())
    errors.raise_any()


_LATER = object()  # a YAML file's case when its file-level keys are read (parsed after)
STREAM_BYTES = 8 << 20  # a YAML file this large is read twice: its cases never all in memory


def _later(_raw: Any, _line: int) -> object:
    return _LATER


def _streamed(p: Path) -> bool:
    """A large YAML file's cases are parsed on a second read, each as the parser completes
    it (its whole tree never exists); a smaller file is read once (1 s less CPU at 2,000
    cases)."""
    try:
        return p.stat().st_size > STREAM_BYTES
    except OSError:
        return False


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
