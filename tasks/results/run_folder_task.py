"""AgentV 4.42.4's task bundle of one test (``DIR/<suite>/<test_id>/task/``): ``EVAL.yaml``,
the test alone as an eval file (``execution.target`` and the test as written, its
assertions as AgentV's grader definitions — a name each, ``type`` with dashes, the suite's
assertions after its own unless ``skip_defaults``, a code-grader's ``cwd`` and unknown keys
in ``config``), and ``targets.yaml``, the target it ran on with the targets it names
(``use_target``, ``grader_target``, ``judge_target``, ``fallback_targets``), as written.
Secret-like values are ``[redacted]`` as AgentV redacts them (``${{ VAR }}`` kept). The test
is read again from its eval file (inline, or a ``tests:`` YAML / JSONL file); a test that
cannot be found there gets no bundle."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from agentv.tasks.load.agentv4.assertions import auto_name

SECRET_KEY = re.compile(r"(?:api[_-]?key|authorization|bearer|credential|password|"
                        r"private[_-]?key|secret|token)", re.I)
SECRET_ASSIGNMENT = re.compile(SECRET_KEY.pattern.join(
    (r"^((?:--?)?[\w.-]*", r"[\w.-]*[=:]).+$")), re.I)
SECRET_FLAG = re.compile(SECRET_KEY.pattern.join((r"^--?[\w.-]*", r"[\w.-]*$")), re.I)
REDACTED = "[redacted]"
CODE_GRADER_KEYS = ("command", "cwd", "weight", "required", "min_score", "negate", "target")


def _load(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return yaml.safe_load(text)


def _tests(data: Any, base: Path) -> list[Any]:
    tests = data.get("tests") if isinstance(data, dict) else data
    if isinstance(tests, str):
        path = base / tests.removeprefix("file://")
        return _tests(_load(path), path.parent) if path.is_file() else []
    return tests if isinstance(tests, list) else []


def source_test(eval_file: str, test_id: str) -> tuple[dict[str, Any], list[Any]] | None:
    """The test as written in ``eval_file`` and the suite's own assertions."""
    path = Path(eval_file)
    try:
        data = _load(path)
        tests = _tests(data, path.parent)
    except (OSError, ValueError, yaml.YAMLError):
        return None
    found = next((t for t in tests if isinstance(t, dict) and str(t.get("id")) == test_id),
                 None)
    if found is None:
        return None
    suite = data.get("assertions", data.get("assert")) if isinstance(data, dict) else None
    return found, suite if isinstance(suite, list) else []


def grader(raw: Any) -> Any:
    """An assertion as AgentV's grader definition."""
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        return raw
    kind = raw["type"].replace("_", "-")
    name = raw["name"] if isinstance(raw.get("name"), str) else auto_name(kind, raw)
    rest = {k: v for k, v in raw.items() if k not in ("name", "type")}
    if kind in ("composite", "assert-set") and isinstance(rest.get("assertions"), list):
        rest["assertions"] = [grader(a) for a in rest["assertions"]]
    if kind in ("code-grader", "code-judge"):
        known = {k: rest[k] for k in CODE_GRADER_KEYS if k in rest}
        if "command" not in known and "script" in rest:
            known["command"] = rest["script"]
        known.setdefault("cwd", "undefined")  # 4.42.4 writes its unset cwd so
        config = {k: v for k, v in rest.items()
                  if k not in CODE_GRADER_KEYS and k not in ("script", "config")}
        given = rest.get("config")
        config = {**config, **given} if isinstance(given, dict) else config
        rest = {**known, **({"config": config} if config else {})}
    required = rest.get("required")
    if isinstance(required, (int, float)) and not isinstance(required, bool):
        rest.setdefault("min_score", required)  # 4.42.4: a numeric required is a min_score
    return {"name": name, "type": kind, **rest}


def eval_case(test: dict[str, Any], suite_assertions: list[Any]) -> dict[str, Any]:
    skip = isinstance(test.get("execution"), dict) and \
        test["execution"].get("skip_defaults") is True
    own = test.get("assertions", test.get("assert"))
    graders = [grader(a) for a in [*(own if isinstance(own, list) else []),
                                   *([] if skip else suite_assertions)]]
    out = {k: v for k, v in test.items() if k not in ("assert", "evaluators")}
    if graders:
        out["assertions"] = graders
    return out


def target_definitions(targets: dict[str, str], name: str) -> list[dict[str, Any]]:
    """The target ``name`` and the targets it names, as its targets file writes them
    (``targets``: target name -> the targets file holding it)."""
    chosen: list[dict[str, Any]] = []

    def visit(wanted: str) -> None:
        if wanted in (d.get("name") for d in chosen) or wanted not in targets:
            return
        try:
            data = _load(Path(targets[wanted]))
        except (OSError, ValueError, yaml.YAMLError):
            return
        entries = data.get("targets") if isinstance(data, dict) else data
        found = next((e for e in entries or [] if isinstance(e, dict)
                      and e.get("name") == wanted), None)
        if found is None:
            return
        chosen.append(found)
        named = [found.get(k) for k in ("use_target", "grader_target", "judge_target")]
        fallback = found.get("fallback_targets")
        named += fallback if isinstance(fallback, list) else []
        for other in named:
            if isinstance(other, str) and other.strip() and "${{" not in other:
                visit(other.strip())
    visit(name)
    return chosen


def sanitized(value: Any, key: str | None = None) -> Any:
    """AgentV's bundle redaction of secret-like values."""
    if isinstance(value, str):
        if "${{" in value:
            return value
        if key and SECRET_KEY.search(key):
            return REDACTED
        return SECRET_ASSIGNMENT.sub(lambda m: m.group(1) + REDACTED, value)
    if isinstance(value, list):
        out, hide = [], False
        for item in value:
            if not isinstance(item, str):
                out.append(sanitized(item))
            elif hide:
                out.append(item if "${{" in item else REDACTED)
                hide = False
            else:
                hide = bool(SECRET_FLAG.match(item))
                out.append(item if hide else sanitized(item))
        return out
    if isinstance(value, dict):
        return {_snake(str(k)): sanitized(v, str(k)) for k, v in value.items()}
    return value


def _snake(key: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), key)


class _Emitter(yaml.SafeDumper):
    """The ``yaml`` package's layout: lists indented under their key, double quotes."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        return super().increase_indent(flow, False)

    def choose_scalar_style(self) -> str:
        style = super().choose_scalar_style()
        text = self.event.value if isinstance(self.event, yaml.ScalarEvent) else ""
        if style in ("'", '"'):  # single quotes only for a text with " and no '
            return "'" if '"' in text and "'" not in text and \
                self.analysis.allow_single_quoted else '"'
        return style


def _text(dumper: yaml.SafeDumper, data: str) -> Any:
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Emitter.add_representer(str, _text)


def to_yaml(value: Any) -> str:
    text = yaml.dump(sanitized(value), Dumper=_Emitter, sort_keys=False, allow_unicode=True,
                     width=1_000_000_000, default_flow_style=False)
    return text.rstrip() + "\n"


def bundle(eval_file: str, test_id: str, target: str,
           targets: dict[str, str]) -> dict[str, str] | None:
    """``{"EVAL.yaml": text, "targets.yaml": text}`` of a test, or None (not found)."""
    found = source_test(eval_file, test_id)
    definitions = target_definitions(targets, target)
    if found is None or not definitions:
        return None
    case = eval_case(*found)
    return {"EVAL.yaml": to_yaml({"execution": {"target": target}, "tests": [case]}),
            "targets.yaml": to_yaml({"targets": definitions})}
