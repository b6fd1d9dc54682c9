"""AgentV 4.x assertion templates: an ``assertions`` item that is only ``include: NAME``
stands for the ``assertions`` list of a template file, as AgentV 4.42.4 expands them
(``expandGraderEntries``): a bare name (no ``.`` in front, no slash) is
``.agentv/templates/NAME.yaml`` (or ``.yml``) in the eval file's folder or above, anything
else a path from the eval file's folder; ``${{ VAR }}`` is filled from the environment; a
template may include others (from its own folder first), at most 3 deep, never in a cycle.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agentv.providers.errors import ConfigError
from agentv.tasks.load.agentv4.templating import interpolate_env
from agentv.tasks.load.yamlsrc import load_yaml_file

MAX_DEPTH = 3


def is_include(item: Any) -> bool:
    return isinstance(item, dict) and len(item) == 1 and isinstance(item.get("include"), str)


def template_file(include: str, roots: list[Path]) -> Path | None:
    bare = not include.startswith(".") and "/" not in include and "\\" not in include
    names = ([f".agentv/templates/{include}.yaml", f".agentv/templates/{include}.yml"]
             if bare else [include])
    for name in names:
        for root in roots:
            for folder in (root, *root.parents) if bare else (root,):
                if (folder / name).is_file():
                    return (folder / name).resolve()
    return None


def expand(items: list[tuple[Any, int]], base_dir: Path, at: str,
           chain: tuple[Path, ...] = ()) -> list[tuple[Any, int]]:
    """(item, line) pairs with every include replaced by its template's items (at the
    include's line; ``at`` is ``file:line`` for errors, with ``{line}`` to fill)."""
    out: list[tuple[Any, int]] = []
    for item, line in items:
        if not is_include(item):
            out.append((item, line))
            continue
        where = at.format(line=line)
        if len(chain) >= MAX_DEPTH:
            raise ConfigError(f"assertion template include depth exceeded {MAX_DEPTH}",
                              where, "include")
        roots = [chain[-1].parent, base_dir] if chain else [base_dir]
        found = template_file(item["include"], roots)
        if found is None:
            raise ConfigError(f"assertion template not found: {item['include']}", where,
                              "include")
        if found in chain:
            raise ConfigError(f"assertion template cycle: {found}", where, "include")
        data = interpolate_env(load_yaml_file(found), os.environ)
        inner = data.get("assertions") if isinstance(data, dict) else None
        if not isinstance(inner, list):
            raise ConfigError(f"assertion template {found} needs a top-level assertions list",
                              where, "include")
        out.extend(expand([(x, line) for x in inner], base_dir, at, (*chain, found)))
    return out
