"""A 4.x ``workspace:`` (the suite's, or a test's own) for agentv's agent workspaces."""
from __future__ import annotations

from typing import Any

from agentv.providers.errors import ConfigError
from agentv.tasks.load.boundary import Boundary, check_workspace
from agentv.tasks.load.yamlsrc import LineDict


def workspace_of(raw: Any, where: str, base_dir: str, warn, boundary: Boundary) -> Any:
    """``workspace:`` as agentv's agent workspaces take it (template, repos, hooks); a shape they
    do not take (a path to a shared file, docker, other hooks) is a warning: not set up."""
    from agentv.providers.agents.workspace_spec import parse_workspace
    value = raw.get("workspace") if isinstance(raw, dict) else None
    if value is None:
        return None
    at = f"{where}:{raw.line_of('workspace') if isinstance(raw, LineDict) else 1}"
    try:
        spec = parse_workspace(value, base_dir, at)
    except ConfigError as err:
        warn(f"{at}: workspace: not set up by agentv ({err.message}; ignored)")
        return None
    return check_workspace(spec, boundary, at)
