"""What ``agentv eval`` prints after the summary about agent workspaces: AgentV 4.x's
"Preserved workspaces:" list (``<case> [<target>] -> <path>``, the records' kept
``workspace_path``) and its hint about --keep-workspaces."""
from __future__ import annotations

from agentv.flows.cli.console import KeptWorkspaces


def test_kept_workspaces_are_listed_with_the_hint():
    kept = KeptWorkspaces(keep_all=False)
    kept.add({"eval_id": "b", "target": "claude", "workspace_path": "/tmp/w2/workspace"})
    kept.add({"eval_id": "ok", "target": "claude", "score": 1.0})  # removed: not listed
    kept.add({"test_id": "a", "target": "pi", "workspace_path": "/tmp/w1/workspace"})
    assert kept.lines() == ["", "Preserved workspaces:", "  a [pi] -> /tmp/w1/workspace",
                            "  b [claude] -> /tmp/w2/workspace",
                            "Use --keep-workspaces to preserve all workspaces for inspection."]


def test_nothing_kept_prints_nothing_and_keep_all_drops_the_hint():
    assert KeptWorkspaces(keep_all=False).lines() == []
    every = KeptWorkspaces(keep_all=True)
    every.add({"eval_id": "ok", "target": "t", "workspace_path": "/w"})
    assert every.lines() == ["", "Preserved workspaces:", "  ok [t] -> /w"]
