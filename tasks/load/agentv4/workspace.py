"""A 4.x ``workspace:`` (the suite's, or a test's own) for agentv's agent workspaces."""
from __future__ import annotations

from typing import Any

from agentv.tasks.load.boundary import Boundary, check_workspace
from agentv.tasks.load.yamlsrc import LineDict


def workspace_of(raw: Any, where: str, base_dir: str, warn, boundary: Boundary) -> Any:
    """``workspace:`` as agentv's agent workspaces take it (template, repos, hooks); a path to
    a shared file is a warning (not set up); a wrong type or a missing template is an error."""
    from agentv.providers.agents.workspace_spec import parse_workspace
    value = raw.get("workspace") if isinstance(raw, dict) else None
    if value is None:
        return None
    at = f"{where}:{raw.line_of('workspace') if isinstance(raw, LineDict) else 1}"
    if not isinstance(value, dict):  # AgentV's path to a shared workspace file: not taken
        warn(f"{at}: workspace: not set up by agentv (must be a mapping (template, repos, "
             f"hooks), got {value!r}; ignored)")
        return None
    spec = parse_workspace(value, base_dir, at)  # a wrong type, a missing template: errors
    return check_workspace(spec, boundary, at)
