"""A 4.x ``assertions`` list → evaluators, with AgentV 4.42.4's rules: plain strings become one
``rubrics`` grader (weight = their number) at the first string's place; ``_`` in a type reads
as ``-`` (``llm_grader`` = ``llm-grader``); unnamed assertions get AgentV's names
(``contains-<value>``, ``icontains-any-<n>``, ``regex-<first 30 chars>``, …); every one is a
``Gated`` evaluator carrying its ``weight``, ``required``, ``min_score`` and ``negate``. A type
that is neither built in nor a script in a ``.agentv/assertions/`` folder up the tree is an
error naming the line.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from pydantic import ValidationError

from agentv.evaluators.base import Evaluator
from agentv.evaluators.gated import Gated
from agentv.evaluators.references import PathCheck, check_contained
from agentv.providers.errors import ConfigError, ConfigErrors, ErrorCollector, did_you_mean
from agentv.providers.lazyload import load_symbol
from agentv.tasks.load.yamlsrc import LineDict, LineList

TYPES = {
    "contains": "agentv.evaluators.text_assertions:Contains",
    "icontains": "agentv.evaluators.text_assertions:Icontains",
    "contains-any": "agentv.evaluators.text_assertions:ContainsAny",
    "contains-all": "agentv.evaluators.text_assertions:ContainsAll",
    "icontains-any": "agentv.evaluators.text_assertions:IcontainsAny",
    "icontains-all": "agentv.evaluators.text_assertions:IcontainsAll",
    "starts-with": "agentv.evaluators.text_assertions:StartsWith",
    "ends-with": "agentv.evaluators.text_assertions:EndsWith",
    "equals": "agentv.evaluators.text_assertions:Equals",
    "regex": "agentv.evaluators.text_assertions:Regex",
    "is-json": "agentv.evaluators.text_assertions:IsJson",
    "code-grader": "agentv.evaluators.code_grader:CodeGrader",
    "latency": "agentv.evaluators.budgets:Latency",
    "cost": "agentv.evaluators.budgets:Cost",
    "token-usage": "agentv.evaluators.budgets:TokenUsage",
    "execution-metrics": "agentv.evaluators.budgets:ExecutionMetrics",
    "field-accuracy": "agentv.evaluators.fields:FieldAccuracy",
    "tool-trajectory": "agentv.evaluators.trajectory4:ToolTrajectory4",
    "llm-grader": "agentv.evaluators.llm_grader4:LlmGrader4",
    "rubrics": "agentv.evaluators.rubric:RubricEvaluator",
    "skill-trigger": "agentv.evaluators.skill_trigger:SkillTrigger",
}
COMPOSITES = {"composite", "assert-set"}
GATE_KEYS = {"name", "type", "weight", "required", "min_score", "negate"}
RETIRED = {"code-judge": "code-grader", "llm-judge": "llm-grader"}
SCRIPT_SUFFIXES = (".ts", ".js", ".mts", ".mjs")


def _errors(err: ValidationError, what: str, where: str) -> ConfigErrors:
    """Every error of a model, one line each."""
    from agentv.providers.base_settings import describe_error
    return ConfigErrors([ConfigError(f"{describe_error(e)} ({what})", where,
                                     ".".join(str(p) for p in e.get("loc", ())) or None)
                         for e in err.errors()])


def auto_name(kind: str, raw: dict) -> str:
    value = raw.get("value")
    text = value if isinstance(value, str) else None
    if kind in ("contains-any", "contains-all", "icontains-any", "icontains-all"):
        return f"{kind}-{len(value)}" if isinstance(value, list) else kind
    if kind in ("contains", "icontains", "starts-with", "ends-with", "equals"):
        return f"{kind}-{text}" if text else kind
    if kind == "regex":
        return f"regex-{text[:30]}" if text else kind
    if kind == "skill-trigger":
        skill = raw.get("skill")
        return f"skill-trigger-{skill}" if isinstance(skill, str) and skill else kind
    return kind


def custom_script(kind: str, base_dir: Path) -> Path | None:
    """``.agentv/assertions/<kind>.ts|js|mts|mjs`` in the eval file's folder or above."""
    for folder in (base_dir, *base_dir.parents):
        for suffix in SCRIPT_SUFFIXES:
            candidate = folder / ".agentv" / "assertions" / f"{kind}{suffix}"
            if candidate.is_file():
                return candidate
    return None


class AssertionBuilder:
    """Builds one file's assertions (``where(line)`` names file:line in errors)."""

    def __init__(self, path: str, base_dir: Path, warn: Callable[[str], None],
                 contain: PathCheck | None = None) -> None:
        """``contain``: the suite's file boundary (every file an assertion names)."""
        self.path, self.base_dir, self.warn, self.contain = path, base_dir, warn, contain

    def at(self, line: int) -> str:
        return f"{self.path}:{line}"

    def build_list(self, raw: Any, line: int, field: str = "assertions") -> list[Evaluator]:
        if raw is None:
            return []
        if not isinstance(raw, list):
            raise ConfigError("must be a list of assertions", self.at(line), field)
        items: list[tuple[Any, int]] = []
        strings: list[str] = []
        for i, item in enumerate(raw):
            item_line = raw.line_of(i) if isinstance(raw, LineList) else line
            if isinstance(item, str):
                if not strings:
                    items.append((None, item_line))
                if item.strip():
                    strings.append(item.strip())
                continue
            items.append((item, item_line))
        built = []
        errors = ErrorCollector()  # every assertion's errors at once
        for item, item_line in items:
            with errors.check():
                if item is None:
                    if strings:
                        built.append(self.rubrics(strings, item_line))
                    continue
                built.append(self.build(item, item_line))
        errors.raise_any()
        return built

    def implicit_grader(self) -> Evaluator:
        """AgentV's llm-grader of a test with no assertions (its record has no ``scores``)."""
        inner = self.make("llm-grader", {}, 1)
        return Gated(name="llm-grader", type="llm-grader", inner=inner, implicit=True)

    def rubrics_from(self, raw: Any, line: int) -> Evaluator:
        """A test's (deprecated) ``rubrics`` list: one rubrics grader in front."""
        if not isinstance(raw, list):
            raise ConfigError("must be a list of rubrics", self.at(line), "rubrics")
        inner = self.make("rubrics", {"rubrics": raw}, line)
        return Gated(name="rubrics", type="llm-grader", inner=inner)

    def rubrics(self, strings: list[str], line: int) -> Evaluator:
        inner = self.make("rubrics", {"rubrics": strings}, line)
        return Gated(name="rubrics", type="llm-grader", weight=float(len(strings)), inner=inner)

    def build(self, raw: Any, line: int) -> Evaluator:
        if not isinstance(raw, dict):
            raise ConfigError("an assertion must be a mapping or a string", self.at(line))
        kind = raw.get("type")
        if not isinstance(kind, str) or not kind:
            raise ConfigError("an assertion needs a 'type'", self.at(line), "type")
        kind = kind.replace("_", "-")
        type_line = raw.line_of("type") if isinstance(raw, LineDict) else line
        if kind in RETIRED:
            raise ConfigError(f"'{kind}' is retired in AgentV 4.x; use '{RETIRED[kind]}'",
                              self.at(type_line), "type")
        config = {k: v for k, v in raw.items() if k not in GATE_KEYS}
        if kind in COMPOSITES:
            inner = self.composite(config, line)
            kind = "composite"
        else:
            inner = self.make(kind, self.settings(kind, config), type_line)
        name = raw.get("name") if isinstance(raw.get("name"), str) else auto_name(kind, raw)
        gates = {k: raw[k] for k in ("weight", "required", "min_score", "negate") if k in raw}
        try:
            return Gated(name=name, type="llm-grader" if kind == "rubrics" else kind,
                         inner=inner, **gates)
        except ValidationError as err:
            raise _errors(err, f"assertion '{name}'", self.at(line)) from None

    def settings(self, kind: str, config: dict) -> dict:
        """4.x spellings → the evaluator's fields."""
        if kind == "rubrics":
            return {"rubrics": config.get("criteria", config.get("rubrics")),
                    **{k: v for k, v in config.items() if k not in ("criteria", "rubrics")}}
        if kind == "code-grader" and "command" not in config and "script" in config:
            return {**{k: v for k, v in config.items() if k != "script"},
                    "command": config["script"]}
        return config

    def composite(self, config: dict, line: int) -> Evaluator:
        from agentv.evaluators.assert_set import AssertSet
        members_raw = config.get("assertions", config.get("graders", config.get("evaluators")))
        members = self.build_list(members_raw, line, "assertions")
        if not members:
            raise ConfigError("a composite needs member 'assertions'", self.at(line),
                              "assertions")
        aggregator = config.get("aggregator") or {}
        if isinstance(aggregator, dict) and isinstance(aggregator.get("type"), str):
            aggregator = {**aggregator, "type": aggregator["type"].replace("-", "_")}
        try:
            built = AssertSet.model_validate({"name": "composite", "type": "composite",
                                              "members": members, "aggregator": aggregator,
                                              "base_dir": str(self.base_dir)})
        except ValidationError as err:
            first = err.errors()[0]
            raise ConfigError(f"{first['msg']}", self.at(line), "aggregator") from None
        check_contained(built, self.at(line), self.contain)
        return built

    def make(self, kind: str, config: dict, line: int) -> Evaluator:
        spec = TYPES.get(kind)
        extra: dict[str, Any] = {}
        if spec is None:
            script = custom_script(kind, self.base_dir)
            if script is None:
                known = ", ".join(sorted([*TYPES, *COMPOSITES]))
                hint = did_you_mean(kind, [*TYPES, *COMPOSITES])
                raise ConfigError(f"unknown assertion type '{kind}'{hint} (known: {known}; or "
                                  f"a script .agentv/assertions/{kind}.ts)", self.at(line),
                                  "type")
            spec = TYPES["code-grader"]
            extra = {"command": ["bun", "run", str(script)], "config": config or None}
            config = {}
        cls = load_symbol(spec)
        try:
            evaluator = cls.model_validate({**config, **extra, "type": kind,
                                            "base_dir": str(self.base_dir)},
                                           context={"where": self.at(line), "warn": self.warn,
                                                    "contain": self.contain})
        except ValidationError as err:
            raise _errors(err, f"assertion type '{kind}'", self.at(line)) from None
        from agentv.evaluators.registry import check_references
        check_references(evaluator, self.at(line), self.contain)
        extras = sorted((evaluator.model_extra or {}).keys())
        if extras and not getattr(cls, "extra_keys_are_config", False):
            hints = "".join(did_you_mean(k, [*cls.model_fields, *GATE_KEYS]) for k in extras)
            self.warn(f"{self.at(line)}: unknown key(s) {', '.join(extras)} in assertion "
                      f"'{kind}'{hints} (ignored)")
        return evaluator
