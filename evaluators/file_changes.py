"""``file_changes``: what an agent changed in its workspace, checked against the case.

An agent target in a workspace records the unified diff of its changes (AgentV's
``file_changes``); this evaluator reads it back. ``edited`` / ``created`` / ``deleted``:
paths (relative to the workspace) that must show as such; ``unchanged``: paths that must
not appear in the diff; ``only_listed: true``: no other path may change; ``contains``:
text that must appear in the diff (e.g. an added line). Score: the share of checks that
held; it passes when all did. With no diff at all (the target has no workspace) it fails.
"""
from __future__ import annotations

from agentv.evaluators.base import EvalContext
from agentv.evaluators.score import Score
from agentv.evaluators.scored import ScoreEvaluator
from agentv.providers.agents.file_changes import changed_paths


class FileChanges(ScoreEvaluator):
    """What the agent changed in its workspace (the `file_changes` diff): `edited`, `created`,
    `deleted`, `unchanged` paths, `contains` text, `only_listed`."""
    kind = "file_changes"
    edited: list[str] = []
    created: list[str] = []
    deleted: list[str] = []
    unchanged: list[str] = []
    contains: list[str] = []
    only_listed: bool = False

    async def score(self, ctx: EvalContext) -> Score:
        diff = ctx.file_changes
        if diff is None:
            return Score(0.0, False, "no file_changes: the target ran without a workspace")
        changed = changed_paths(diff)
        checks = [(f"{how} {p}", changed.get(p) == how)
                  for how, paths in (("edited", self.edited), ("created", self.created),
                                     ("deleted", self.deleted)) for p in paths]
        checks += [(f"unchanged {p}", p not in changed) for p in self.unchanged]
        checks += [(f"diff contains {t!r}", t in diff) for t in self.contains]
        if self.only_listed:
            listed = {*self.edited, *self.created, *self.deleted}
            extra = sorted(set(changed) - listed)
            also = f" (also: {', '.join(extra)})" if extra else ""
            checks.append((f"no other changes{also}", not extra))
        if not checks:
            return Score(1.0 if changed else 0.0, bool(changed),
                         f"{len(changed)} file(s) changed" if changed else "nothing changed")
        failed = [label for label, ok in checks if not ok]
        reason = ("; ".join(f"not {f}" for f in failed) if failed
                  else f"{len(checks)} of {len(checks)} change checks held")
        return Score((len(checks) - len(failed)) / len(checks), not failed, reason)
