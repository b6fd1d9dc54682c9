"""The docs tables generated from the registries: every provider (docs/targets.md), every
evaluator type (evaluators/README.md, and as one sentence in docs/formats.md), with their keys
read from the same pydantic models ``validate`` and ``agentv schema`` use, and each row's text
from the class docstring's first paragraph. A table sits between
``<!-- generated: NAME -->`` and ``<!-- end generated -->``; ``python -m tasks.plan.catalogue``
rewrites them, ``tests/tasks/plan/test_catalogue.py`` fails when one is stale. No Prefect, no
litellm.
"""
from __future__ import annotations

import inspect
import re
import sys
import typing
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel
from pydantic.fields import FieldInfo

ROOT = Path(__file__).resolve().parents[2]
COMMON_EVALUATOR_KEYS = {"name", "type", "weight", "base_dir"}
_MARKERS = r"(<!-- generated: {name} -->\n)(.*?)(<!-- end generated -->)"


def summary(cls: type) -> str:
    """The first paragraph of the class docstring, on one line, for a table cell."""
    doc = inspect.cleandoc(cls.__dict__.get("__doc__") or "")
    return " ".join(doc.split("\n\n", 1)[0].split()).replace("|", "\\|")


def _module_line(cls: type) -> str:
    """The first line of the class's module docstring (a provider without a docstring)."""
    doc = (sys.modules[cls.__module__].__doc__ or "").strip()
    return doc.split("\n", 1)[0].replace("|", "\\|")


def spelling(name: str, info: FieldInfo) -> str:
    alias = info.validation_alias
    if isinstance(alias, AliasChoices):
        return str(alias.choices[0])
    return str(alias or info.alias or name)


def key_text(name: str, info: FieldInfo) -> str:
    """``key``, ``key: a | b`` for a choice, ``key=default`` for a simple default."""
    text = f"`{spelling(name, info)}`"
    args = [info.annotation]
    if typing.get_origin(info.annotation) is not Literal:
        args = [a for a in typing.get_args(info.annotation) if a is not type(None)] or args
    choices = [c for a in args if typing.get_origin(a) is Literal for c in typing.get_args(a)]
    if choices:
        text += ": " + " \\| ".join(f"`{c}`" for c in choices)
    default = info.default
    simple = isinstance(default, (bool, int, float)) or (
        isinstance(default, str) and 0 < len(default) <= 20)
    if not info.is_required() and simple:
        shown = str(default).lower() if isinstance(default, bool) else str(default)
        text += f" (default `{shown}`)" if choices else f"={shown}"
    return text


def model_keys(model: type[BaseModel], skip: set[str]) -> str:
    keys = [key_text(n, f) for n, f in model.model_fields.items() if n not in skip]
    return ", ".join(keys) or "—"


def _grouped(registry: dict[str, Any]) -> list[tuple[list[str], Any]]:
    """Registry kinds sharing one implementation as one row (aliases), in registry order."""
    rows: dict[str, list[str]] = {}
    for kind, spec in registry.items():
        rows.setdefault(repr(spec), []).append(kind)
    return [(kinds, registry[kinds[0]]) for kinds in rows.values()]


def evaluator_table() -> str:
    from agentv.evaluators.registry import EVALUATORS, evaluator_class
    lines = ["| type | keys | scores |", "|---|---|---|"]
    for kinds, _ in _grouped(EVALUATORS):
        cls = evaluator_class(kinds[0])
        lines.append(f"| {' / '.join(f'`{k}`' for k in kinds)} | "
                     f"{model_keys(cls, COMMON_EVALUATOR_KEYS)} | {summary(cls)} |")
    return "\n".join(lines) + "\n"


def provider_table() -> str:
    from agentv.providers.base_settings import ProviderSettings
    from agentv.providers.registry import REGISTRY, facts, provider_class
    common = set(ProviderSettings.model_fields)
    lines = ["| provider | kind | what it is | program, credentials | settings (plus the retry "
             "settings) |",
             "|---|---|---|---|---|"]
    for kinds, _ in _grouped(REGISTRY):
        cls, found = provider_class(kinds[0]), facts(kinds[0])
        settings = found.settings_model()
        lines.append(f"| {' / '.join(f'`{k}`' for k in kinds)} | {found.label} | "
                     f"{summary(cls) or summary(settings) or _module_line(cls)} | "
                     f"{needs(found)} | {model_keys(settings, common)} |")
    return "\n".join(lines) + "\n"


def needs(found: Any) -> str:
    """What a provider uses from the machine: its program, its credentials' variables."""
    parts = [f"`{found.program}` on PATH"] if found.program else []
    parts += [f"`{name}`" for name in found.secret_env]
    return ", ".join(parts) or "—"


def evaluator_types() -> str:
    """Every evaluator type, as one sentence (docs/formats.md's pointer to the catalogue)."""
    from agentv.evaluators.registry import EVALUATORS
    kinds = [" / ".join(f"`{k}`" for k in kinds) for kinds, _ in _grouped(EVALUATORS)]
    return ", ".join(kinds[:-1]) + f" and {kinds[-1]}.\n"


TABLES = {"docs/formats.md": {"evaluator-types": evaluator_types},
          "docs/targets.md": {"providers": provider_table},
          "evaluators/README.md": {"evaluators": evaluator_table}}


def rendered(text: str, name: str, table: str) -> str:
    pattern = re.compile(_MARKERS.format(name=re.escape(name)), re.S)
    if not pattern.search(text):
        raise ValueError(f"no '<!-- generated: {name} -->' ... '<!-- end generated -->' block")
    return pattern.sub(lambda m: m.group(1) + table + m.group(3), text, count=1)


def refreshed(root: Path = ROOT) -> dict[Path, str]:
    """Each docs file with its generated tables rendered from the registries now."""
    out = {}
    for rel, tables in TABLES.items():
        text = (root / rel).read_text(encoding="utf-8")
        for name, make in tables.items():
            text = rendered(text, name, make())
        out[root / rel] = text
    return out


def main() -> int:
    changed = [p for p, text in refreshed().items()
               if p.read_text(encoding="utf-8") != text and p.write_text(text, "utf-8")]
    for path in changed:
        print(f"updated {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
