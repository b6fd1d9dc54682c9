"""A case's working directory for an agent program, made fresh per case and attempt.

``open_workspace`` makes ``<tmp>/agentv-<program>-XXXX/workspace``: empty scratch, or the
``workspace.template`` folder copied, plus each ``workspace.repos`` entry cloned and checked
out at its pinned commit; then the setup command runs in it (its stdin: AgentV's JSON case
context), and the case's guideline and attachment files are mirrored in, at their path
relative to the eval file (files from elsewhere under ``_files/``), so the links in the
prompt point inside the workspace. A snapshot taken then is what ``changes()`` diffs against.
The folder beside ``workspace/`` holds agentv's own files for the run (the program's config
and usage files), never seen by the agent. ``finish`` removes it or keeps it
(``retain_on_success`` / ``retain_on_failure``) and says where it is: the provider calls it
when the program fails; a case runner that took the workspace over
(``Request.hand_over_workspace``) calls it once the answer is scored, so evaluators see the
workspace and a case that fails on them keeps it.

A target with a fixed ``cwd`` runs there instead: nothing is made, mirrored or removed.
"""
from __future__ import annotations

import json
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

from agentv.providers.agents import file_changes
from agentv.providers.agents.workspace_spec import RepoSpec, WorkspaceSpec
from agentv.providers.base import ProviderError, Request, Response
from agentv.providers.process.overlay import copy_tree
from agentv.providers.process.sandbox import Profile
from agentv.providers.process.supervision import ProcessTimeout, run_process

GIT_TIMEOUT_S = 300.0


@dataclass
class Workspace:
    path: Path  # the agent's working directory
    side: Path  # agentv's own files for this run
    root: Path | None  # what finish() removes (None: a fixed cwd)
    spec: WorkspaceSpec | None = None
    files: dict[str, str] = field(default_factory=dict)  # case file -> path in the workspace
    baseline: dict[str, file_changes.FileState] | None = None

    def changes(self) -> str | None:
        """The diff of what changed since the workspace was ready (None: fixed cwd)."""
        if self.baseline is None:
            return None
        return file_changes.diff(self.path, self.baseline)

    def finish(self, failed: bool, keep_all: bool = False) -> str | None:
        """Remove or keep the workspace; the kept path, else None. ``failed``: the case
        failed or errored; ``keep_all`` (``--keep-workspaces``) keeps a passing case's too,
        unless its ``retain_on_success`` says ``cleanup`` itself (AgentV's precedence)."""
        if self.root is None:
            return None
        if self.keep(failed, keep_all):
            return str(self.path)
        shutil.rmtree(self.root, ignore_errors=True)
        return None

    def keep(self, failed: bool, keep_all: bool) -> bool:
        spec = self.spec or WorkspaceSpec()
        if failed:
            return spec.retain_on_failure == "keep"
        if keep_all and "retain_on_success" not in spec.model_fields_set:
            return True
        return spec.retain_on_success == "keep"


async def open_workspace(program: str, request: Request, fixed_cwd: str | None) -> Workspace:
    if fixed_cwd:
        side = Path(tempfile.mkdtemp(prefix=f"agentv-{program}-side-"))
        return Workspace(Path(fixed_cwd), side, None)
    root = Path(tempfile.mkdtemp(prefix=f"agentv-{program}-"))
    ws = Workspace(root / "workspace", root / "agentv", root, request.workspace)
    ws.side.mkdir()
    try:
        await _materialize(ws, request)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return ws


async def run_in_workspace(program: str, request: Request, fixed_cwd: str | None,
                           run: Callable[[Workspace], Awaitable[Response]]) -> Response:
    """``run`` the program in the case's workspace; the response carries the workspace's
    ``file_changes`` and, when the request asks, the workspace itself (else it is finished
    here as a success). A failure keeps it: its path and changes go in the error's
    details."""
    ws = await open_workspace(program, request, fixed_cwd)
    try:
        response = await run(ws)
    except ProviderError as err:
        changes = ws.changes()
        kept = ws.finish(failed=True)
        err.details = {**(err.details or {}), **({"workspace_path": kept} if kept else {}),
                       **({"file_changes": changes} if changes else {})}
        raise
    except BaseException:
        ws.finish(failed=True)
        raise
    finally:
        if ws.root is None:
            shutil.rmtree(ws.side, ignore_errors=True)
    response.file_changes = ws.changes()
    if request.hand_over_workspace and ws.root is not None:
        response.workspace, response.workspace_path = ws, str(ws.path)  # scored there
    else:
        response.workspace_path = ws.finish(failed=False)
    return response


class InWorkspace:
    """A target that is no agent (a mock, an LLM API) answering a case that has a workspace:
    the workspace is made as for an agent (its template, repos and setup hook; AgentV 4.42.4
    makes it for every target), so the case's graders see it at ``workspace_path``; it is
    removed once the case is scored (as 4.42.4's suite workspace: no record keeps its path).
    Agents (``is_agent``) make their own."""

    def __init__(self, provider: Any) -> None:
        self.provider = provider
        self.name = provider.name
        self.kind = getattr(provider, "kind", "")

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.provider, attr)

    async def invoke(self, request: Request) -> Response:
        if request.workspace is None:
            return await self.provider.invoke(request)

        async def answer(_ws: Workspace) -> Response:
            return await self.provider.invoke(request)
        response = await run_in_workspace(self.kind or "target", request, None, answer)
        if response.workspace is not None:
            response.workspace = Discarded(response.workspace)
        return response


@dataclass
class Discarded:
    """A handed-over workspace removed when its case is finished, whatever the outcome."""
    workspace: Workspace

    def finish(self, failed: bool, keep_all: bool = False) -> str | None:
        if self.workspace.root is not None:
            shutil.rmtree(self.workspace.root, ignore_errors=True)
        return None


async def _materialize(ws: Workspace, request: Request) -> None:
    spec = ws.spec
    if spec is not None and spec.template:
        template = str(spec.resolve(spec.template))
        copy_tree(template, str(ws.path), top=template)  # writable; links kept, said once
    else:
        ws.path.mkdir()
    if spec is not None:
        for repo in spec.repos:
            await _checkout(ws, spec, repo)
        if spec.setup_hook is not None:
            await _setup(ws, spec, request)
    ws.files = mirror(request, ws.path)
    ws.baseline = file_changes.snapshot(ws.path)


async def _checkout(ws: Workspace, spec: WorkspaceSpec, repo: RepoSpec) -> None:
    dest = (ws.path / repo.path).resolve()
    if not dest.is_relative_to(ws.path.resolve()):
        raise ProviderError(f"workspace repo path {repo.path!r} leaves the workspace")
    local = Path(spec.resolve(repo.repo))
    source = str(local) if local.exists() else repo.repo
    # agentv's own git: the workspace writable, a local source readable, a remote one reached
    profile = Profile("hook", "none" if local.exists() else "full", (str(ws.path),),
                      (str(local),) if local.exists() else ())
    await _git(["git", "clone", "--quiet", "--no-checkout", source, str(dest)], ws.path,
               profile)
    await _git(["git", "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach",
                repo.ref], dest, profile)


async def _git(argv: list[str], cwd: Path, profile: Profile) -> None:
    try:
        proc = await run_process(argv, cwd=str(cwd), timeout=GIT_TIMEOUT_S, sandbox=profile)
    except ProcessTimeout:
        raise ProviderError(f"workspace: {' '.join(argv[:3])} timed out") from None
    proc.check_exit(f"workspace: {' '.join(argv[:2])} {argv[-2] if len(argv) > 3 else ''}"
                    .strip())


async def _setup(ws: Workspace, spec: WorkspaceSpec, request: Request) -> None:
    hook = spec.setup_hook
    assert hook is not None and isinstance(hook.command, list)
    context = {"workspace_path": str(ws.path), "test_id": request.eval_id,
               "case_input": request.question}
    cwd = spec.resolve(hook.cwd) if hook.cwd else str(ws.path)
    try:
        proc = await run_process(hook_argv(hook.command, context), cwd=cwd,
                                 stdin=json.dumps(context),
                                 sandbox=Profile("hook", writable=(str(ws.path),)),
                                 timeout=hook.timeout_ms / 1000.0)
    except ProcessTimeout:
        raise ProviderError(f"workspace setup command timed out after "
                            f"{hook.timeout_ms / 1000.0:g}s") from None
    except OSError as err:
        raise ProviderError(f"workspace setup command cannot run: {err}") from None
    proc.check_exit("workspace setup command")


_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


def hook_argv(command: list[str], context: dict[str, str]) -> list[str]:
    """The setup command with ``{{workspace_path}}``, ``{{test_id}}`` and ``{{case_input}}``
    filled in each argument, as AgentV 4.42.4 does; another ``{{name}}`` stays as written."""
    return [_PLACEHOLDER.sub(lambda m: str(context.get(m.group(1), m.group(0))), arg)
            for arg in command]


def mirror(request: Request, dest: Path) -> dict[str, str]:
    """Copy the case's guideline and attachment files into ``dest``: at their path relative
    to the eval file's folder, or under ``_files/`` when they live elsewhere."""
    base = Path(request.eval_file).resolve().parent if request.eval_file else None
    mirrored: dict[str, str] = {}
    for original in dict.fromkeys(request.guideline_paths + request.input_files):
        src = Path(original).resolve()
        if not src.is_file():
            continue
        rel = (src.relative_to(base) if base is not None and src.is_relative_to(base)
               else Path("_files") / src.name)
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
        mirrored[original] = str(target)
    return mirrored
