"""Evaluator ``type`` → class, imported lazily; builds evaluators from YAML config.

Adding an evaluator: one file (an ``Evaluator`` subclass whose fields are its YAML keys and
whose docstring's first paragraph is its row in the docs table) and one line in
``EVALUATORS`` (or ``register(kind, cls)`` from outside the project). ``validate``, the JSON
Schema (``agentv schema``) and evaluators/README.md's table (``tasks.plan.catalogue``) read this
registry. Unknown config keys are reported as warnings (never silently dropped); invalid
values raise ``ConfigError`` naming file:line and field.
"""
from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, Callable

from pydantic import ValidationError

from agentv.evaluators.base import Evaluator
from agentv.evaluators.references import SCRIPT_SUFFIXES, PathCheck, check_contained
from agentv.providers.errors import ConfigError, ConfigErrors, ErrorCollector, did_you_mean
from agentv.providers.lazyload import load_symbol

# type -> "module:Class" (or the class itself, when registered at run time)
EVALUATORS: dict[str, str | type[Evaluator]] = {
    "llm_judge": "agentv.evaluators.llm_judge:LlmJudge",
    "code_judge": "agentv.evaluators.code:CodeJudge",
    "code": "agentv.evaluators.code:CodeJudge",
    # AgentV catalogue
    "rubric": "agentv.evaluators.rubric:RubricEvaluator",
    "composite": "agentv.evaluators.composite:Composite",
    "tool_trajectory": "agentv.evaluators.trajectory:ToolTrajectory",
    "field_accuracy": "agentv.evaluators.fields:FieldAccuracy",
    "latency": "agentv.evaluators.budgets:Latency",
    "cost": "agentv.evaluators.budgets:Cost",
    "token_usage": "agentv.evaluators.budgets:TokenUsage",
    "execution_metrics": "agentv.evaluators.budgets:ExecutionMetrics",
    # bbeval heuristics
    "keywords": "agentv.evaluators.heuristics:Keywords",
    "error_detection": "agentv.evaluators.heuristics:ErrorDetection",
    "heuristic": "agentv.evaluators.heuristics:AspectCoverage",
    # deterministic checks and combinators
    "exact_match": "agentv.evaluators.text_assertions:Equals",
    "contains": "agentv.evaluators.text_assertions:Contains",
    "regex": "agentv.evaluators.text_forms:Regex",
    "is_json": "agentv.evaluators.text_forms:IsJson",
    "json_subset": "agentv.evaluators.checks:JsonSubset",
    "within_tolerance": "agentv.evaluators.checks:WithinTolerance",
    "all_of": "agentv.evaluators.combinators:AllOf",
    "any_of": "agentv.evaluators.combinators:AnyOf",
    # trace / session checks
    "tool_called": "agentv.evaluators.trace_checks:ToolCalled",
    "tool_not_called": "agentv.evaluators.trace_checks:ToolNotCalled",
    "tool_call_count": "agentv.evaluators.trace_checks:ToolCallCount",
    "all_tools_succeeded": "agentv.evaluators.trace_checks:AllToolsSucceeded",
    "token_usage_under": "agentv.evaluators.trace_checks:TokenUsageUnder",
    "trace_contains": "agentv.evaluators.trace_checks:TraceContains",
    "file_changes": "agentv.evaluators.file_changes:FileChanges",
    # judges and user code
    "categorical_judge": "agentv.evaluators.categorical:CategoricalJudge",
    "python": "agentv.evaluators.python_eval:PythonEvaluator",
}


V2 = {k: v for k, v in EVALUATORS.items() if isinstance(v, str)}  # the built-in entries
# AgentV 4.x's spellings of the same registry: a kind one class serves for both generations
# is an alias of its v2 entry (the generation's rules are the validation context
# {"generation": "4.x"}, chosen once by the 4.x loader: evaluators.base.agentv4_rules)
AGENTV4_EVALUATORS: dict[str, str] = {
    "contains": V2["contains"],
    "icontains": "agentv.evaluators.text_assertions:Icontains",
    "contains-any": "agentv.evaluators.text_assertions:ContainsAny",
    "contains-all": "agentv.evaluators.text_assertions:ContainsAll",
    "icontains-any": "agentv.evaluators.text_assertions:IcontainsAny",
    "icontains-all": "agentv.evaluators.text_assertions:IcontainsAll",
    "starts-with": "agentv.evaluators.text_assertions:StartsWith",
    "ends-with": "agentv.evaluators.text_assertions:EndsWith",
    "equals": V2["exact_match"],
    "regex": V2["regex"],
    "is-json": V2["is_json"],
    "code-grader": V2["code_judge"],
    "latency": V2["latency"],
    "cost": V2["cost"],
    "token-usage": V2["token_usage"],
    "execution-metrics": V2["execution_metrics"],
    "field-accuracy": V2["field_accuracy"],
    "tool-trajectory": V2["tool_trajectory"],
    "llm-grader": V2["llm_judge"],
    "rubrics": V2["rubric"],
    "skill-trigger": "agentv.evaluators.skill_trigger:SkillTrigger",
}


def register(kind: str, evaluator: str | type[Evaluator]) -> None:
    """Make ``type: kind`` build ``evaluator`` (a class or ``"module:Class"``)."""
    EVALUATORS[kind] = evaluator


def known_types() -> list[str]:
    return sorted(EVALUATORS)


def evaluator_class(kind: str, where: str = "") -> type[Evaluator]:
    spec = EVALUATORS.get(kind)
    if spec is None:
        raise ConfigError(f"unknown evaluator type '{kind}'{did_you_mean(kind, EVALUATORS)} "
                          f"(known: {', '.join(known_types())})", where, "type")
    if isinstance(spec, type):
        return spec
    try:
        return load_symbol(spec)
    except (ImportError, AttributeError) as err:
        raise ConfigError(f"evaluator type '{kind}' is not available ({err})", where,
                          "type") from None


def build_evaluator(config: dict[str, Any], *, base_dir: str = ".", where: str = "",
                    warn: Callable[[str], None] | None = None,
                    contain: PathCheck | None = None) -> Evaluator:
    """``contain``: the suite's file boundary, which every file the evaluator (and each of
    its members) names must pass before it is read."""
    if not isinstance(config, dict):
        raise ConfigError(f"an evaluator must be a mapping, got {type(config).__name__}", where)
    kind = config.get("type")
    if not kind:
        raise ConfigError("evaluator needs a 'type'", where, "type")
    if kind == "llm_judge" and config.get("rubrics"):
        kind = "rubric"  # AgentV: an llm_judge given rubrics grades them item by item
    cls = evaluator_class(str(kind), where)
    try:
        evaluator = cls.model_validate({**config, "base_dir": base_dir},
                                       context={"where": where, "warn": warn,
                                                "contain": contain})
    except ValidationError as err:
        from agentv.providers.base_settings import describe_error
        from agentv.providers.model_errors import merged_errors
        label = config.get('name') or kind
        raise ConfigErrors([ConfigError(f"{describe_error(e)} (evaluator '{label}')", where,
                                        ".".join(str(p) for p in e.get("loc", ())) or None)
                            for e in merged_errors(err.errors())]) from None
    check_references(evaluator, where, contain)
    register_secrets(evaluator)
    extras = sorted((evaluator.model_extra or {}).keys())
    near = [k for k in extras if did_you_mean(k, cls.model_fields)]  # a typo: an error
    if near and not getattr(cls, "extra_keys_are_config", False):
        raise ConfigError(f"unknown key '{near[0]}' in evaluator '{config.get('name') or kind}'"
                          f"{did_you_mean(near[0], cls.model_fields)}", where)
    if extras and warn and not getattr(cls, "extra_keys_are_config", False):
        hints = "".join(did_you_mean(k, cls.model_fields) for k in extras)
        warn(f"{where}: unknown key(s) {', '.join(extras)} in evaluator "
             f"'{config.get('name') or kind}'{hints} (ignored)")
    return evaluator


def register_secrets(evaluator: Evaluator) -> None:
    """The run's registry masks the evaluator's secret-bearing fields (a code judge's
    ``env`` values) from now on, in every sink (``providers.secret_fields``)."""
    from agentv.providers import secrets
    from agentv.providers.secret_fields import PLAIN, model_secrets
    marked, loose = model_secrets(evaluator)
    secrets.add(v for v in marked + loose if not PLAIN.match(v.strip()))


def check_references(evaluator: Evaluator, where: str, contain: PathCheck | None = None) -> None:
    """Files an evaluator will read are inside the suite's boundary (``contain``) and exist
    before the first case: a judge ``prompt`` file, a code judge's ``cwd`` and the script
    files named in ``script``."""
    check_contained(evaluator, where, contain)
    prompt = getattr(evaluator, "prompt", None)
    if isinstance(prompt, str):
        from agentv.evaluators.llm_judge import load_prompt
        try:
            load_prompt(prompt, evaluator.base_dir)
        except FileNotFoundError as err:
            raise ConfigError(str(err).replace("judge prompt file not found",
                                               "prompt file not found"), where, "prompt") from None
        except (OSError, UnicodeDecodeError) as err:
            raise ConfigError(f"cannot read prompt file: {err}", where, "prompt") from None
    script = getattr(evaluator, "script", None)  # a code judge's / code-grader's command
    if script is None:
        return
    field = getattr(evaluator, "command_key", "script")  # as the suite's generation spells it
    base = Path(evaluator.base_dir)
    cwd_setting = getattr(evaluator, "cwd", None)
    cwd = base / cwd_setting if isinstance(cwd_setting, str) else base
    if not cwd.is_dir():
        raise ConfigError(f"directory not found: {cwd.resolve()}", where, "cwd")
    try:
        tokens = script if isinstance(script, list) else shlex.split(str(script))
    except ValueError as err:
        raise ConfigError(f"cannot split the command ({err})", where, "script") from None
    for token in map(str, tokens):
        if token.endswith(SCRIPT_SUFFIXES) and not (cwd / token).is_file():
            raise ConfigError(f"script file not found: {(cwd / token).resolve()}", where,
                              field)
    if field == "command":  # AgentV 4.x's code-grader and .ts assertions
        _check_program(tokens, cwd, where, field)


def _check_program(tokens: list, cwd: Path, where: str, field: str) -> None:
    """The program a script runs with (``bun`` for a ``.ts`` assertion, ``python3``) is on
    PATH, or the file it names exists: else every case would score 0 at run time."""
    import shutil
    program = str(tokens[0]) if tokens else ""
    if not program:
        return
    if "/" in program:
        if not (cwd / program).is_file():
            raise ConfigError(f"program not found: {(cwd / program).resolve()}", where, field)
    elif shutil.which(program) is None:
        hint = " (AgentV's .ts/.js assertions run with bun: install it)" \
            if program == "bun" else ""
        raise ConfigError(f"program '{program}' not found on PATH{hint}", where, field)


def build_evaluators(configs: list[Any], *, base_dir: str, where: str,
                     warn: Callable[[str], None] | None = None,
                     line_of: Callable[[int], str] | None = None,
                     contain: PathCheck | None = None) -> list[Evaluator]:
    """Build a list; a member without a name gets ``<type>`` or ``<type>_<n>``."""
    built: list[Evaluator] = []
    seen: dict[str, int] = {}
    errors = ErrorCollector()  # every evaluator's errors at once
    for i, cfg in enumerate(configs or []):
        loc = line_of(i) if line_of else where
        with errors.check():
            built.append(build_evaluator(cfg, base_dir=base_dir, where=loc, warn=warn,
                                         contain=contain))
    errors.raise_any()
    for ev in built:
        base = ev.name or ev.type or ev.kind
        seen[base] = seen.get(base, 0) + 1
        if not ev.name:
            ev.name = base if seen[base] == 1 else f"{base}_{seen[base]}"
    return built
