"""``provider: codex`` — OpenAI's Codex CLI as an agent target (contract of
``@openai/codex`` 0.169: ``codex [flags] exec --json --color never --skip-git-repo-check
--ephemeral -``, the prompt on stdin).

Settings: ``executable`` (default ``codex``; a name on PATH or a path relative to the
targets file), ``args`` (extra arguments before ``exec``), ``profile``, ``model``,
``approval_preset`` (see ``APPROVAL_PRESETS``: ``read-only``, ``auto``, ``full-access``,
``on-request``, ``never``; Codex 0.169 has no ``untrusted``/``on-failure`` policy and no
``--full-auto``, so those are configuration errors), ``cwd`` (default: a fresh scratch
directory per case), ``timeout_seconds``, ``log_dir`` (each case attempt's raw event stream;
default ``.agentv/logs/codex``, as AgentV). ``--ephemeral`` keeps codex from writing session
rollouts under CODEX_HOME.

The prompt opens with the same pre-read block as the vscode target (``file://`` links and
SHA-256 tokens of every guideline and attachment, ``providers.agents.preread``); ``prompt()`` is
exactly what codex receives (``--dump-prompts`` shows it). The JSONL events give the final
assistant message, the trace and token usage (``providers.agents.codex_events``); a
``turn.failed``/``error`` event is the case's error with codex's own message. Tool
processes codex leaves running are killed with the case (``providers.process.supervision``).
"""
from __future__ import annotations

import logging
import os
import shlex
import shutil
import tempfile
import time
from datetime import datetime
from pathlib import Path

from providers.base import (BaseProvider, ConfigError, ProviderError, ProviderTimeout, Request,
                            Response)
from providers.agents.cli_settings import check_cwd, directory, seconds
from providers.agents.codex_events import CodexRun, MalformedStream, parse_stream
from providers.process.environment import child_env
from providers.facts import ProviderFacts
from providers.filenames import bounded_name
from providers.agents.preread import linked_prompt, unique_files
from providers.process.supervision import ProcessResult, ProcessTimeout, run_process
from providers.secrets import scrub

log = logging.getLogger("agentv.codex")
APPROVAL_PRESETS = {  # preset -> flags Codex CLI 0.169 accepts (before ``exec``)
    "read-only": ["--sandbox", "read-only", "--ask-for-approval", "never"],
    "auto": ["--sandbox", "workspace-write", "--ask-for-approval", "never"],
    "full-access": ["--dangerously-bypass-approvals-and-sandbox"],
    "on-request": ["--ask-for-approval", "on-request"],
    "never": ["--ask-for-approval", "never"],
}
# the .env variables codex itself reads (everything else in .env stays out of its environment)
CODEX_ENV = ("OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL", "CODEX_HOME")
GONE_POLICIES = ("untrusted", "on-failure")  # removed from --ask-for-approval by Codex
EXEC_ARGS = ["exec", "--json", "--color", "never", "--skip-git-repo-check", "--ephemeral", "-"]
DEFAULT_LOG_DIR = os.path.join(".agentv", "logs", "codex")


def find_executable(name: str, base_dir: str) -> str | None:
    """A bare name is looked up on PATH; a path is taken relative to ``base_dir``."""
    if os.sep not in name and "/" not in name:
        return shutil.which(name)
    path = (Path(base_dir) / os.path.expanduser(name)).resolve()
    return str(path) if path.is_file() and os.access(path, os.X_OK) else None


def approval_flags(preset: object, where: str) -> list[str]:
    if preset is None:
        return []
    if preset in GONE_POLICIES:
        raise ConfigError(f"approval policy {preset!r} is not accepted by Codex CLI 0.169 "
                          "(--ask-for-approval takes on-request or never); use one of "
                          f"{', '.join(APPROVAL_PRESETS)}", where, "approval_preset")
    if preset not in APPROVAL_PRESETS:
        raise ConfigError(f"unknown approval_preset {preset!r} (known: "
                          f"{', '.join(APPROVAL_PRESETS)})", where, "approval_preset")
    return APPROVAL_PRESETS[str(preset)]


class CodexProvider(BaseProvider):
    """The Codex CLI (`codex exec --json`) as an agent target; its events become the trace."""
    kind = "codex"
    # its settings module imports this one (approval_flags): named, not imported
    facts = ProviderFacts("agent", settings="providers.agents.codex_settings:CodexSettings",
                          program="codex", secret_env=("OPENAI_API_KEY", "CODEX_API_KEY"))

    def __init__(self, target):
        super().__init__(target)
        s, where = target.setting, target.where
        self.executable = s("executable", "command", default="codex")
        if not isinstance(self.executable, str) or not self.executable.strip():
            raise ConfigError("must be the codex executable's name or path", where, "executable")
        args = s("args", default=[])
        if isinstance(args, str):
            args = shlex.split(args)
        if not isinstance(args, list) or not all(isinstance(a, (str, int, float)) for a in args):
            raise ConfigError("must be a list of strings", where, "args")
        self.args = [str(a) for a in args]
        self.preset_flags = approval_flags(s("approval_preset", "approvalPreset"), where)
        self.profile, self.model = s("profile"), s("model")
        self.cwd = directory(s("cwd"), target.base_dir, where, "cwd")
        self.timeout_s = seconds(s("timeout_seconds", "timeoutSeconds"), where, "timeout_seconds")
        self.log_dir = (directory(s("log_dir", "logDir"), target.base_dir, where, "log_dir")
                        or os.path.abspath(DEFAULT_LOG_DIR))
        self._resolved: str | None = None

    def check(self) -> None:
        self._resolved = find_executable(self.executable, self.target.base_dir)
        if self._resolved is None:
            raise ConfigError(f"codex executable {self.executable!r} not found (install the Codex "
                              "CLI, e.g. 'npm install -g @openai/codex@0.169.0', or set "
                              "'executable' to its path)", self.target.where, "executable")
        check_cwd(self.cwd, self.target.where)

    def argv(self) -> list[str]:
        exe = self._resolved or find_executable(self.executable, self.target.base_dir)
        if exe is None:
            raise ProviderError(f"codex executable {self.executable!r} not found")
        argv = [exe, *self.args]
        if self.profile:
            argv += ["--profile", str(self.profile)]
        if self.model:
            argv += ["--model", str(self.model)]
        return argv + self.preset_flags + EXEC_ARGS

    def agent_prompt(self, request: Request) -> str:
        """Exactly what codex gets on stdin."""
        files = [p for p in unique_files(request.guideline_paths + request.input_files)
                 if Path(p).is_file()]
        return linked_prompt(request.question, files)

    async def invoke(self, request: Request) -> Response:
        workspace = None if self.cwd else tempfile.mkdtemp(prefix="agentv-codex-")
        cwd: str = self.cwd or workspace or "."
        try:
            return await self._run(request, self.agent_prompt(request), cwd)
        finally:
            if workspace:
                shutil.rmtree(workspace, ignore_errors=True)

    async def _run(self, request: Request, prompt: str, cwd: str) -> Response:
        argv = self.argv()
        lines: list[tuple[float, str]] = []
        log.info("target %s, case %s: running %s (cwd=%s)", self.name, request.eval_id,
                 shlex.join(argv), cwd)
        started = time.perf_counter()
        try:
            proc = await run_process(argv, cwd=cwd, env=child_env(CODEX_ENV), stdin=prompt,
                                     timeout=self.timeout_s,
                                     on_stdout_line=lambda l: lines.append((time.time(), l)))
        except ProcessTimeout:
            self._save_log(request, lines, "")
            raise ProviderTimeout(f"codex timed out after {self.timeout_s:g}s (codex and its "
                                  "tool processes killed)") from None
        latency = (time.perf_counter() - started) * 1000.0
        self._save_log(request, lines, proc.stderr)
        run = self._parse(lines, proc)
        for warning in run.warnings:
            log.info("target %s, case %s: codex warning: %s", self.name, request.eval_id, warning)
        calls = [{"tool": e.name, "input": e.arguments, "output": e.result}
                 for e in run.trace if e.type == "tool_call"]
        message = {"role": "assistant", "content": run.text, **({"tool_calls": calls}
                                                                 if calls else {})}
        return Response(text=run.text, output_messages=[message], trace=run.trace,
                        usage=run.usage, latency_ms=latency,
                        raw={"exit_code": proc.returncode, "events": len(lines)})

    def _parse(self, lines: list[tuple[float, str]], proc: ProcessResult) -> CodexRun:
        """The run, or codex's own failure: ``turn.failed``/``error``, else its stderr."""
        details = proc.details()
        try:
            run = parse_stream(lines, self.model)
        except MalformedStream as err:
            proc.check_exit("codex")
            raise ProviderError(f"codex output is malformed: {err}", details=details) from None
        if run.failure:
            raise ProviderError(f"codex turn failed: {run.failure}", details=details)
        proc.check_exit("codex")
        return run

    def _save_log(self, request: Request, lines: list[tuple[float, str]], stderr: str) -> None:
        stamp = datetime.now().strftime("%Y%m%dT%H%M%S")
        base = Path(self.log_dir) / bounded_name(
            f"{stamp}_{self.name}_{request.eval_id}", f"attempt-{request.attempt}",
            [request.eval_id, request.trial, request.attempt, stamp])
        try:
            base.parent.mkdir(parents=True, exist_ok=True)
            Path(f"{base}.jsonl").write_text(scrub("".join(l for _, l in lines)),
                                             encoding="utf-8")
            if stderr.strip():
                Path(f"{base}.stderr.log").write_text(scrub(stderr), encoding="utf-8")
        except OSError as err:
            log.warning("target %s: cannot write codex log under %s: %s", self.name,
                        self.log_dir, err)
