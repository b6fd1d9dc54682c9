"""``provider: vscode`` (alias ``vscode-copilot``) / ``vscode-insiders`` — GitHub Copilot in
VS Code, through the ``subagent`` CLI (npm ``subagent``, contract of 0.4.6).

Each case gets a structured prompt file: a pre-read block with a ``file://`` link and the
SHA-256 token of every guideline and attachment file, then the user query
(``providers.agents.preread``). subagent hands ``-a FILE`` to ``code`` through a shell, unquoted, so
a file whose path has spaces or shell characters is attached as a safely named link.
agentv runs ``subagent code chat -q QUERY --prompt FILE -a FILE… --wait``
(``code-insiders`` for vscode-insiders). subagent claims an unlocked provisioned workspace
(``subagent code provision``), prints one JSON status line —
``{"success": true, "subagent_name", "response_file"}`` or ``{"success": false, "error"}`` —
has VS Code's chat write the reply to ``response_file`` and exits when it appears. The
answer is read from ``response_file``; subagent's own ``error:`` lines (e.g. "No unlocked
subagents available") become the case's error. ``--silent`` is not passed: it hides them.

Settings: ``subagent`` (executable, default ``subagent``), ``vscode_cmd`` (default ``code``
or ``code-insiders``; a path puts its directory first on subagent's PATH, since subagent
runs the command by that name), ``workspace_template`` (a ``.code-workspace`` file, relative
to the targets file), ``timeout_seconds`` (on timeout the claimed workspace is unlocked
again). One VS Code window answers one case at a time, so the run's workers are capped at 1
(``max_workers``; the plan warns when it lowers them).
"""
from __future__ import annotations

import json
import logging
import os
import shlex
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from agentv.providers import secrets
from agentv.providers.agents.agent_cli import find_executable
from agentv.providers.agents.cli_settings import seconds
from agentv.providers.agents.preread import linked_prompt, unique_files
from agentv.providers.agents.vscode_settings import VSCodeSettings
from agentv.providers.base import (
    BaseProvider,
    ConfigError,
    ProviderError,
    ProviderTimeout,
    Request,
    Response,
)
from agentv.providers.facts import ProviderFacts
from agentv.providers.process.sandbox import target_profile
from agentv.providers.process.supervision import TAIL, ProcessResult, ProcessTimeout, run_process
from agentv.providers.secrets import tail

log = logging.getLogger("agentv.vscode")
LOCK_NAME = "subagent.lock"  # subagent 0.4.6's DEFAULT_LOCK_NAME


class VSCodeProvider(BaseProvider):
    """VS Code / Copilot agent mode through the `subagent` program; the reply from its response
    file."""
    kind = "vscode"
    facts = ProviderFacts("agent", settings=VSCodeSettings, max_workers=1, program="subagent")

    def __init__(self, target):
        super().__init__(target)
        s, where = target.setting, target.where
        self.insiders = target.provider == "vscode-insiders"
        self.subagent = str(s("subagent", "subagent_executable", default="subagent"))
        self.vscode_cmd = str(s("vscode_cmd", "vscodeCmd",
                                default="code-insiders" if self.insiders else "code"))
        template = s("workspace_template", "workspaceTemplate")
        self.workspace_template = (str((Path(target.base_dir) / template).resolve())
                                   if template else None)
        self.timeout_s = seconds(s("timeout_seconds", "timeoutSeconds"), where, "timeout_seconds")
        self._subagent: str | None = None

    def check(self) -> None:
        """Say exactly what is missing: the subagent CLI, VS Code, the workspace template."""
        missing = []
        self._subagent = find_executable(self.subagent, self.target.base_dir)
        if self._subagent is None:
            missing.append(f"the 'subagent' CLI ({self.subagent!r} not found; install it with "
                           "'npm install -g subagent@0.4.6', then 'subagent code provision')")
        if find_executable(self.vscode_cmd, self.target.base_dir) is None:
            missing.append(f"VS Code{' Insiders' if self.insiders else ''} ({self.vscode_cmd!r} "
                           "not found on PATH; install it and its shell command, or set "
                           "vscode_cmd)")
        if self.workspace_template and not Path(self.workspace_template).is_file():
            missing.append(f"the workspace_template file {self.workspace_template}")
        if missing:
            raise ConfigError("missing " + "; ".join(missing), self.target.where,
                              "provider")

    def argv(self, prompt_file: Path, files: list[str]) -> list[str]:
        exe = self._subagent or find_executable(self.subagent, self.target.base_dir)
        if exe is None:
            raise ProviderError(f"subagent executable {self.subagent!r} not found")
        query = (f"Follow the instructions in the attached prompt file {prompt_file.name} and "
                 "answer its user query.")
        argv = [exe, "code-insiders" if self.insiders else "code", "chat", "-q", query,
                "--prompt", str(prompt_file)]
        if self.workspace_template:
            argv += ["--workspace-template", self.workspace_template]
        for f in files:
            argv += ["-a", f]
        return argv + ["--wait"]

    def agent_prompt(self, request: Request) -> str:
        """The prompt file's text (also what ``--dump-prompts`` shows)."""
        return linked_prompt(request.question, self._files(request))

    @staticmethod
    def _files(request: Request) -> list[str]:
        return [p for p in unique_files(request.guideline_paths + request.input_files)
                if Path(p).is_file()]

    def env(self) -> dict[str, str]:
        """subagent runs VS Code by its name (``code``): a configured path goes first on PATH.
        VS Code is a desktop program that reads its own environment (display, keyring, its
        settings), so subagent gets agentv's OS environment (never ``.env``-only values), not
        the allow-list other case processes get."""
        registry = secrets.current()
        hidden = registry.dotenv_only if registry is not None else frozenset()
        env = {k: v for k, v in os.environ.items() if k not in hidden}
        if "/" in self.vscode_cmd:
            found = find_executable(self.vscode_cmd, self.target.base_dir)
            if found:
                env["PATH"] = os.path.dirname(found) + os.pathsep + env.get("PATH", "")
        return env

    async def invoke(self, request: Request) -> Response:
        tmp = Path(tempfile.mkdtemp(prefix="agentv-vscode-", dir=shell_safe_tmp()))
        try:
            prompt_file = tmp / f"{safe_name(request.eval_id) or 'case'}.prompt.md"
            prompt_file.write_text(self.agent_prompt(request), encoding="utf-8")
            files = shell_safe_paths(self._files(request), tmp / "attachments")
            return await self._run(request, self.argv(prompt_file, files), tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    @staticmethod
    def _seen(argv: list[str]) -> list[str]:
        """The folders of the files subagent is handed (the suite's attachments, its
        workspace template: configuration, not case text), seen read-only."""
        return list(dict.fromkeys(os.path.dirname(a) for a in argv[1:]
                                  if os.path.isabs(a) and os.path.isfile(a)))

    async def _run(self, request: Request, argv: list[str], tmp: Path) -> Response:
        log.info("target %s, case %s: dispatching to VS Code via %s", self.name, request.eval_id,
                 argv[0])
        lines: list[str] = []
        started = time.perf_counter()
        try:
            env = self.env()
            state = os.path.join(env.get("HOME", os.path.expanduser("~")), ".subagent")
            proc = await run_process(argv, env=env, timeout=self.timeout_s,
                                     on_stdout_line=lines.append, sandbox=target_profile(
                                         self.target.setting, self.target.where, "agent",
                                         writable=[tmp, state], readable=self._seen(argv)))
        except ProcessTimeout:
            unlock(status_line(lines))
            raise ProviderTimeout(f"VS Code agent timed out after {self.timeout_s:g}s (the "
                                  "subagent workspace was unlocked)") from None
        latency = (time.perf_counter() - started) * 1000.0
        if proc.stderr.strip():
            log.info("target %s, case %s: subagent stderr:\n%s", self.name, request.eval_id,
                     tail(proc.stderr, TAIL).rstrip())
        status = status_line(lines)
        if proc.returncode != 0 or not status.get("success"):
            raise ProviderError(f"subagent failed: {failure(proc, status)}",
                                details=proc.details(response_file=status.get("response_file")))
        text = read_response(status, proc)
        return Response(text=text, latency_ms=latency,
                        raw={"exit_code": proc.returncode,
                             "subagent": status.get("subagent_name")})


def safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def shell_safe_tmp() -> str | None:
    """The temporary folder, unless its path would not survive subagent's shell (then /tmp)."""
    return None if shlex.quote(tempfile.gettempdir()) == tempfile.gettempdir() else "/tmp"


def shell_safe_paths(paths: list[str], folder: Path) -> list[str]:
    """subagent 0.4.6 runs ``code -r chat -a FILE…`` through a shell with the arguments joined
    by spaces, unquoted: a path with a space or a shell character would be split or run. Such
    a file is attached as a symbolic link with a safe name (the prompt links the original)."""
    out = []
    for n, path in enumerate(paths):
        if shlex.quote(path) == path:
            out.append(path)
            continue
        link = folder / str(n) / (safe_name(Path(path).name) or "file")
        link.parent.mkdir(parents=True)
        link.symlink_to(path)
        out.append(str(link))
    return out


def status_line(lines: list[str]) -> dict[str, Any]:
    """subagent's first JSON line on stdout (``{}`` when there is none)."""
    for line in lines:
        if line.startswith("{"):
            try:
                data = json.loads(line)
            except ValueError:
                continue
            if isinstance(data, dict) and "success" in data:
                return data
    return {}


def failure(proc: ProcessResult, status: dict[str, Any]) -> str:
    """subagent's own message: its JSON ``error``, its ``error:`` lines, else the exit code."""
    if status.get("error"):
        return str(status["error"])
    at = proc.stderr.find("error:")
    if at >= 0:  # the error line and its continuation (e.g. how to provision more)
        return tail(" ".join(proc.stderr[at + len("error:"):].split()), 500)
    detail = tail(proc.stderr.strip() or proc.stdout.strip(), 500)
    return f"exited with code {proc.returncode}" + (f": {detail}" if detail else "")


def read_response(status: dict[str, Any], proc: ProcessResult) -> str:
    path = status.get("response_file")
    if not path:
        raise ProviderError("subagent printed no response_file", details=proc.details())
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise ProviderError(f"cannot read subagent's response_file {path}: {err.strerror}",
                            details=proc.details()) from None
    if not text.strip():
        raise ProviderError(f"subagent's response_file {path} is empty", details=proc.details())
    return text.strip()


def unlock(status: dict[str, Any]) -> None:
    """Release the workspace a timed-out case had claimed (subagent removes its lock only
    when the reply arrives)."""
    path = status.get("response_file")
    if path:
        lock = Path(path).parent.parent / LOCK_NAME
        lock.unlink(missing_ok=True)
