"""One 4.x test → ``EvalCase``.

``input`` (text, one message or a list of messages) after the suite's ``input`` (unless
``execution.skip_defaults``); ``input_files`` (the test's, else the suite's) become file blocks
before a text input; ``criteria`` (``expected_outcome``: deprecated spelling);
``expected_output`` (text, an object or messages); ``assertions`` (``assert``: deprecated) then
the suite's assertions (unless ``skip_defaults``); ``rubrics`` (deprecated) in front;
``execution`` {target, threshold, skip_defaults}; ``vars`` filled into criteria, input,
input_files and expected_output; ``metadata``; ``conversation_id``; ``mode: conversation`` and
its turns (``tasks.load.agentv4.turns``). Like AgentV, a test needs an id, an input and one of
criteria / expected_output / assertions / turns.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from agentv.evaluators.base import Evaluator
from agentv.providers.errors import ConfigError, ErrorCollector, unknown_key
from agentv.tasks.load.agentv4.assertions import AssertionBuilder
from agentv.tasks.load.agentv4.templating import interpolate_vars
from agentv.tasks.load.agentv4.turns import CONVERSATION_KEYS, conversation_of
from agentv.tasks.load.agentv4.workspace import workspace_of
from agentv.tasks.load.boundary import Boundary
from agentv.tasks.load.eval_case import EvalCase
from agentv.tasks.load.generation import FORMAT
from agentv.tasks.load.messages import parse_messages, resolve_file
from agentv.tasks.load.yamlsrc import LineDict

TEST_KEYS = {"id", "input", "input_files", "criteria", "expected_outcome", "expected_output",
             "assertions", "assert", "rubrics", "execution", "vars", "metadata",
             "conversation_id", "workspace", "note", "description", "tags", *CONVERSATION_KEYS}
UNSUPPORTED = {"depends_on": "test dependencies (`depends_on`)"}
TEST_EXECUTION_KEYS = {"target", "threshold", "skip_defaults", "targets"}


@dataclass
class SuiteDefaults:
    """What every test of a file inherits."""
    path: str
    name: str
    category: str
    base_dir: Path
    patterns: tuple[str, ...]
    builder: AssertionBuilder
    boundary: Boundary  # where the suite's files may come from
    input: Any = None
    input_files: Any = None
    assertions: list[Evaluator] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    workspace: Any = None  # the suite's (a test's own replaces it)


def _line(obj: Any, key: str, default: int) -> int:
    return obj.line_of(key) if isinstance(obj, LineDict) and key in obj else default


def parse_test(raw: Any, line: int, suite: SuiteDefaults, warn: Callable[[str], None],
               where: str | None = None) -> EvalCase | None:
    """``where``: the file the test is written in (an external tests file), for errors.
    None: a test with no criteria, expected_output or assertions of its own, which AgentV
    4.42.4 skips with a message (the suite's assertions do not count)."""
    origin = where or suite.path
    at = f"{origin}:{line}"
    if not isinstance(raw, dict):
        raise ConfigError("a test must be a mapping", at)
    errors = ErrorCollector()  # the test's independent parts, every error at once
    for key in raw:
        if key in UNSUPPORTED:
            raise ConfigError(f"{UNSUPPORTED[key]} is not supported by agentv",
                              f"{origin}:{_line(raw, key, line)}", key)
        if key not in TEST_KEYS:
            with errors.check():  # a near miss is an error, reported with the others
                unknown_key(key, "test", TEST_KEYS, f"{origin}:{_line(raw, key, line)}", warn)
    test_id = raw.get("id")
    if not isinstance(test_id, (str, int)) or isinstance(test_id, bool) or str(test_id) == "":
        raise ConfigError("required field missing or not a string", at, "id")
    variables = raw.get("vars") if isinstance(raw.get("vars"), dict) else None
    with errors.check():
        _typed_keys(raw, origin, line)
    execution: dict = {}
    with errors.check():
        execution = _execution(raw, origin, line, warn)
        _target(execution, origin, line)
    with errors.check():
        _threshold(execution, origin, line)
    skip = execution.get("skip_defaults") is True
    criteria, inputs, expected, evaluators = "", [], [], []
    with errors.check():
        criteria = _criteria(raw, variables, origin, line)
    with errors.check():
        inputs = _inputs(raw, variables, suite, skip, origin, line)
    with errors.check():
        expected = parse_messages(_expected(interpolate_vars(raw.get("expected_output"),
                                                             variables)),
                                  suite.base_dir, origin, _line(raw, "expected_output", line),
                                  "expected_output", suite.patterns, suite.boundary)
    builder = suite.builder if origin == suite.path else AssertionBuilder(
        origin, suite.base_dir, warn, suite.builder.contain)
    with errors.check():
        evaluators = _assertions(raw, suite, builder, skip, line)
    conversation = None
    with errors.check():
        conversation = conversation_of(raw, variables, builder, origin, line, warn)
    errors.raise_any()
    if not (criteria or expected or "assertions" in raw or "assert" in raw or conversation):
        warn(f"{at}: skipping test '{test_id}': it needs criteria, expected_output or "
             f"assertions of its own (as AgentV 4.x)")
        return None
    own_meta = raw.get("metadata")
    return EvalCase(
        id=str(test_id), file=suite.path, line=line, dataset=suite.name,
        expected_outcome=criteria, input_messages=inputs, expected_messages=expected,
        conversation_id=str(raw["conversation_id"]) if raw.get("conversation_id") else None,
        target=_target(execution, origin, line),
        evaluators=evaluators or ([] if conversation else [builder.implicit_grader()]),
        conversation=conversation,
        metadata={**suite.metadata, **(own_meta if isinstance(own_meta, dict) else {})},
        format=FORMAT, threshold=_threshold(execution, origin, line), category=suite.category,
        workspace=workspace_of(raw, origin, str(suite.base_dir), warn, suite.boundary)
        or suite.workspace)


def _typed_keys(raw: dict, origin: str, line: int) -> None:
    """Keys whose wrong type would otherwise be dropped without a word: ``vars`` (a
    mapping), ``input_files`` (a list of paths), ``input`` (not a mapping without a role)."""
    checks = (("vars", lambda v: isinstance(v, dict), "must be a mapping of names to values"),
              ("input_files", lambda v: isinstance(v, list) and all(isinstance(f, str)
                                                                    for f in v),
               "must be a list of file paths"),
              ("input", lambda v: not isinstance(v, dict) or "role" in v,
               "must be text, a message {role, content} or a list of messages"))
    for key, ok, message in checks:
        value = raw.get(key)
        if value is not None and not ok(value):
            shown = ("a mapping" if isinstance(value, dict) else "a list"
                     if isinstance(value, list) else repr(value))
            raise ConfigError(f"{message}, got {shown}", f"{origin}:{_line(raw, key, line)}",
                              key)


def _execution(raw: dict, path: str, line: int, warn) -> dict:
    execution = raw.get("execution") or {}
    if not isinstance(execution, dict):
        raise ConfigError("must be a mapping", f"{path}:{_line(raw, 'execution', line)}",
                          "execution")
    for key in execution:
        if key not in TEST_EXECUTION_KEYS:
            unknown_key(key, "execution", TEST_EXECUTION_KEYS,
                        f"{path}:{_line(execution, key, line)}", warn)
    skip = execution.get("skip_defaults")
    if skip is not None and not isinstance(skip, bool):
        raise ConfigError(f"must be true or false, got {skip!r}",
                          f"{path}:{_line(execution, 'skip_defaults', line)}", "skip_defaults")
    return execution


def _criteria(raw: dict, variables, path: str, line: int) -> str:
    key = "criteria" if "criteria" in raw else "expected_outcome"
    value = interpolate_vars(raw.get(key), variables)
    if value is None:
        return ""
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise ConfigError("must be text", f"{path}:{_line(raw, key, line)}", key)
    return str(value)


def _inputs(raw: dict, variables, suite: SuiteDefaults, skip: bool, origin: str,
            line: int) -> list:
    value = interpolate_vars(raw.get("input"), variables)
    files = raw.get("input_files") if "input_files" in raw else (
        None if skip else suite.input_files)
    files = interpolate_vars(files, variables)
    if isinstance(files, list):
        at = (f"{origin}:{_line(raw, 'input_files', line)}" if "input_files" in raw
              else f"{suite.path}:{getattr(suite.input_files, 'line', 1)}")
        for name in (f for f in files if isinstance(f, str)):
            suite.boundary.check(resolve_file(name, suite.base_dir), at, "input_files", name)
    if isinstance(files, list) and isinstance(value, str):
        value = [{"role": "user", "content": [*({"type": "file", "value": f} for f in files
                                                if isinstance(f, str)),
                                              {"type": "text", "value": value}]}]
    messages = parse_messages(value, suite.base_dir, origin, _line(raw, "input", line),
                              "input", suite.patterns, suite.boundary)
    if not messages:
        raise ConfigError("required field missing", f"{origin}:{line}", "input")
    if suite.input is not None and not skip:
        prefix = parse_messages(interpolate_vars(suite.input, variables), suite.base_dir,
                                suite.path, getattr(suite.input, "line", 1), "input",
                                suite.patterns, suite.boundary)
        messages = [*prefix, *messages]
    return messages


def _expected(value: Any) -> Any:
    """A list that is not messages is one assistant message's structured content."""
    if isinstance(value, list) and value and not (isinstance(value[0], dict)
                                                  and "role" in value[0]):
        return [{"role": "assistant", "content": {"items": value}}]
    return value


def _assertions(raw: dict, suite: SuiteDefaults, builder: AssertionBuilder, skip: bool,
                line: int) -> list[Evaluator]:
    key = "assertions" if "assertions" in raw else "assert"
    own = builder.build_list(raw.get(key), _line(raw, key, line))
    if raw.get("rubrics") is not None:
        own = [builder.rubrics_from(raw["rubrics"], _line(raw, "rubrics", line)), *own]
    return own if skip else [*own, *suite.assertions]


def _target(execution: dict, path: str, line: int) -> str | None:
    value = execution.get("target")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError("must be a target name (a string)",
                          f"{path}:{_line(execution, 'target', line)}", "target")
    return value


def _threshold(execution: dict, origin: str, line: int) -> float | None:
    value = execution.get("threshold")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ConfigError(f"must be a number from 0 to 1, got {value!r}",
                          f"{origin}:{_line(execution, 'threshold', line)}", "threshold")
    return float(value)
