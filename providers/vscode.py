"""``provider: vscode`` / ``vscode-insiders`` — GitHub Copilot in VS Code, through ``subagent``.

Each case gets a structured prompt file: a pre-read block with a ``file://`` link and the
SHA-256 token of every guideline and attachment file, then the user query. It is handed to
the ``subagent`` CLI (``subagent code chat -q … --prompt FILE -a FILE… --wait``), which
claims a provisioned VS Code workspace, runs the chat and prints the response.

Settings: ``subagent`` (executable, default ``subagent``), ``vscode_cmd`` (default ``code``
or ``code-insiders``), ``workspace_template`` (a ``.code-workspace`` file, relative to the
targets file), ``timeout_seconds``. One VS Code window answers one case at a time, so the
run's workers are capped at 1 (``max_workers``; the plan warns when it lowers them).
"""
from __future__ import annotations

import logging
import shutil
import tempfile
import time
from pathlib import Path

from providers.base import (BaseProvider, ConfigError, ProviderError, ProviderTimeout, Request,
                            Response)
from providers.cli_settings import seconds
from providers.codex import find_executable
from providers.preread import linked_prompt, unique_files
from providers.process import TAIL, ProcessTimeout, run_process
from providers.secrets import tail

log = logging.getLogger("agentv.vscode")


class VSCodeProvider(BaseProvider):
    kind = "vscode"
    is_agent = True
    max_workers = 1

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
                           "'npm install -g subagent', then 'subagent code provision')")
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
        return argv + ["--wait", "--silent"]

    async def invoke(self, request: Request) -> Response:
        tmp = Path(tempfile.mkdtemp(prefix="agentv-vscode-"))
        try:
            files = [p for p in unique_files(request.guideline_paths + request.input_files)
                     if Path(p).is_file()]
            safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in request.eval_id)
            prompt_file = tmp / f"{safe or 'case'}.prompt.md"
            prompt_file.write_text(linked_prompt(request.question, files), encoding="utf-8")
            return await self._run(request, self.argv(prompt_file, files))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    async def _run(self, request: Request, argv: list[str]) -> Response:
        log.info("target %s, case %s: dispatching to VS Code via %s", self.name, request.eval_id,
                 argv[0])
        started = time.perf_counter()
        try:
            proc = await run_process(argv, stdin=None, timeout=self.timeout_s)
        except ProcessTimeout:
            raise ProviderTimeout(f"VS Code agent timed out after {self.timeout_s:g}s") from None
        latency = (time.perf_counter() - started) * 1000.0
        if proc.stderr.strip():
            log.info("target %s, case %s: subagent stderr:\n%s", self.name, request.eval_id,
                     tail(proc.stderr, TAIL).rstrip())
        proc.check_exit("subagent")
        details = proc.details()
        text = proc.stdout.strip()
        if not text:
            raise ProviderError("subagent returned no response", details=details)
        return Response(text=text, latency_ms=latency, raw={"exit_code": proc.returncode})
