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

from agentv.evaluators.base import AGENTV4, Evaluator
from agentv.evaluators.gated import Gated
from agentv.evaluators.references import PathCheck, check_contained
from agentv.evaluators.registry import AGENTV4_EVALUATORS
from agentv.providers.errors import ConfigError, ConfigErrors, ErrorCollector, did_you_mean
from agentv.providers.lazyload import load_symbol
from agentv.tasks.load.agentv4.includes import expand
from agentv.tasks.load.yamlsrc import LineDict, LineList

TYPES = AGENTV4_EVALUATORS  # the one registry's AgentV 4.x spellings (evaluators.registry)
COMPOSITES = {"composite"}
UNGRADED = {"assert-set"}  # AgentV 4.42.4 loads them and scores them 0 (evaluators.unknown)
SINGLE_VALUE = ("contains", "icontains", "starts-with", "ends-with", "regex", "equals")
LIST_VALUE = ("contains-any", "contains-all", "icontains-any", "icontains-all")
FIELD_MATCHES = ("exact", "numeric_tolerance", "date")
LIMITS = {"token-usage": ("max_total", "max_input", "max_output"),
          "execution-metrics": ("max_tool_calls", "max_llm_calls", "max_tokens", "max_cost_usd",
                                "max_duration_ms", "target_exploration_ratio")}
GATE_KEYS = {"name", "type", "weight", "required", "min_score", "negate"}
RETIRED = {"code-judge": "code-grader", "llm-judge": "llm-grader"}
SCRIPT_SUFFIXES = (".ts", ".js", ".mts", ".mjs")


def _errors(err: ValidationError, what: str, where: str) -> ConfigErrors:
    """Every error of a model, one line each."""
    from agentv.providers.error_phrases import describe_error
    from agentv.providers.model_errors import merged_errors
    return ConfigErrors([ConfigError(f"{describe_error(e)} ({what})", where,
                                     ".".join(str(p) for p in e.get("loc", ())) or None)
                         for e in merged_errors(err.errors())])


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


def _limit(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


def skip_reason(kind: str, raw: dict) -> str | None:
    """Why AgentV 4.42.4 drops this assertion at load (a warning; the file still runs): a text
    assertion whose ``value`` is not a non-empty string, a list assertion with no string, a
    ``latency``/``cost`` without a non-negative ``threshold``/``budget``, a ``token-usage`` /
    ``execution-metrics`` without one limit."""
    value = raw.get("value")
    if kind in SINGLE_VALUE and (not isinstance(value, str) or value == ""):
        return "'value' must be a non-empty string"
    if kind in LIST_VALUE and (not isinstance(value, list)
                               or not any(isinstance(v, str) for v in value)):
        return "'value' must be a non-empty string list"
    if kind == "latency" and not _limit(raw.get("threshold")):
        return "'threshold' must be a non-negative number"
    if kind == "cost" and not _limit(raw.get("budget")):
        return "'budget' must be a non-negative number"
    if kind in LIMITS and not any(_limit(raw.get(k)) for k in LIMITS[kind]):
        return f"set at least one of {', '.join(LIMITS[kind])}"
    if kind == "field-accuracy" and not valid_fields(raw.get("fields")):
        return "no field with a 'path' and a 'match' (exact, numeric_tolerance or date)"
    return None


def valid_fields(fields: Any) -> list:
    """The ``field-accuracy`` fields AgentV 4.42.4 keeps: a mapping with a text ``path`` and a
    ``match`` of exact / numeric_tolerance / date (it drops the others with a warning)."""
    if not isinstance(fields, list):
        return []
    return [f for f in fields if isinstance(f, dict) and isinstance(f.get("path"), str)
            and f["path"] and f.get("match") in FIELD_MATCHES]


def code_grader_settings(config: dict) -> dict:
    """4.42.4's code-grader: `script` is `command`'s old name; `env` is no setting of its, so
    it reaches the script in `config` as any other unknown key does."""
    out = {k: v for k, v in config.items() if k not in ("script", "env")}
    if "command" not in config and "script" in config:
        out["command"] = config["script"]
    given = config.get("config") or {}
    if "env" in config and isinstance(given, dict):  # else `config` is refused as it is
        out["config"] = {"env": config["env"], **given}
    return out


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
        written = [(item, raw.line_of(i) if isinstance(raw, LineList) else line)
                   for i, item in enumerate(raw)]
        for item, item_line in expand(written, self.base_dir, f"{self.path}:{{line}}"):
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
                if not self.skipped(item, item_line):
                    built.append(self.build(item, item_line))
        errors.raise_any()
        return built

    def skipped(self, raw: Any, line: int) -> bool:
        """What AgentV 4.42.4's loader drops with a warning (``skip_reason``; a composite
        without an ``aggregator`` or its ``type``) is an error: an assertion missing its
        value would silently leave the test's score to the rest."""
        if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
            return False
        kind = raw["type"].replace("_", "-")
        aggregator = raw.get("aggregator")
        if kind in COMPOSITES and not (isinstance(aggregator, dict) and "type" in aggregator):
            raise ConfigError("composite assertion: no aggregator type (AgentV 4.42.4 would "
                              "skip the composite; give one: weighted_average, threshold, "
                              "code-grader or llm-grader)", self.at(line), "aggregator")
        why = skip_reason(kind, raw)
        if why:  # AgentV 4.42.4 drops it with a warning and the score changes: an error here
            named = why.split("'")[1] if why.count("'") >= 2 else kind
            raise ConfigError(f"{kind} assertion: {why}", self.at(line), named)
        return False

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
        if kind in LIST_VALUE:  # AgentV keeps only the list's strings
            config["value"] = [v for v in raw["value"] if isinstance(v, str)]
        if kind in COMPOSITES:
            inner = self.composite(config, line)
        elif kind in UNGRADED:
            from agentv.evaluators.unknown import UnknownType
            self.warn(f"{self.at(type_line)}: '{kind}' is not a type AgentV 4.42.4 can grade: "
                      f"it scores 0 (use 'composite')")
            inner = UnknownType(type=kind, written=kind)
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
        if kind == "field-accuracy":  # AgentV's valid fields; an unknown aggregation: default
            kept = {k: v for k, v in config.items() if k != "aggregation"
                    or v in ("weighted_average", "all_or_nothing")}
            return {**kept, "fields": valid_fields(config.get("fields"))}
        if kind == "code-grader":
            return code_grader_settings(config)
        return config

    def composite(self, config: dict, line: int) -> Evaluator:
        from agentv.evaluators.assert_set import AssertSet
        members_raw = config.get("assertions", config.get("graders", config.get("evaluators")))
        if any(isinstance(m, dict) and "include" not in m and not str(m.get("name") or "").strip()
               for m in (members_raw if isinstance(members_raw, list) else [])):
            raise ConfigError("a composite member needs a 'name' (AgentV 4.42.4 skips a member "
                              "without one)", self.at(line), "assertions")
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
                                                    "contain": self.contain,
                                                    "generation": AGENTV4})
        except ValidationError as err:
            raise _errors(err, f"assertion type '{kind}'", self.at(line)) from None
        from agentv.evaluators.registry import check_references
        check_references(evaluator, self.at(line), self.contain)
        extras = sorted((evaluator.model_extra or {}).keys())
        keys = [*cls.model_fields, *GATE_KEYS]
        near = [k for k in extras if did_you_mean(k, keys)]  # a typo: an error, not ignored
        if near and not getattr(cls, "extra_keys_are_config", False):
            raise ConfigError(f"unknown key '{near[0]}' in assertion '{kind}'"
                              f"{did_you_mean(near[0], keys)}", self.at(line))
        if extras and not getattr(cls, "extra_keys_are_config", False):
            hints = "".join(did_you_mean(k, [*cls.model_fields, *GATE_KEYS]) for k in extras)
            self.warn(f"{self.at(line)}: unknown key(s) {', '.join(extras)} in assertion "
                      f"'{kind}'{hints} (ignored)")
        return evaluator
