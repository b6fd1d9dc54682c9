"""The agent-CLI base: what codex, claude, copilot and pi targets share.

A subclass says what its program is (``facts``, ``program``, ``install_hint``, the ``.env``
names it reads, its presets) and implements three hooks: ``flags`` (argv after
the executable, the target's ``args`` where the program wants them), ``program_env``
(credentials and config: only ever through the child's environment, never argv) and
``parse`` (its event stream → ``AgentRun``). The base does the rest: settings, executable
lookup, the per-case workspace (``providers.agents.workspace``), the prompt (pre-read block
of ``file://`` links to the files as mirrored into the workspace, then the task; on stdin,
so no prompt text is ever read as a flag), the supervised run (a timeout or a cancelled run
kills the whole process tree), the raw event log (scrubbed), the answer, trace, usage and
the workspace's ``file_changes`` in the response. A failed run keeps its workspace (path in
the error details), as AgentV does; after a run that answered, the workspace is handed over
in ``Response.workspace`` when the request asks for it (the case runner finishes it after
scoring), else finished here as a success.
"""
from __future__ import annotations

import logging
import os
import shlex
import shutil
import time
from abc import abstractmethod
from datetime import datetime
from pathlib import Path
from typing import ClassVar

from agentv.providers.agents.events import AgentRun, MalformedStream
from agentv.providers.agents.preread import linked_prompt
from agentv.providers.agents.workspace import Workspace, run_in_workspace
from agentv.providers.base import (
    BaseProvider,
    ConfigError,
    ProviderError,
    ProviderTimeout,
    Request,
    Response,
)
from agentv.providers.filenames import bounded_name
from agentv.providers.process.environment import child_env
from agentv.providers.process.sandbox import Profile, target_profile
from agentv.providers.process.supervision import ProcessResult, ProcessTimeout, run_process
from agentv.providers.secrets import scrub

log = logging.getLogger("agentv.agents")


def find_executable(name: str, base_dir: str) -> str | None:
    """A bare name is looked up on PATH; a path is taken relative to ``base_dir``."""
    if os.sep not in name and "/" not in name:
        return shutil.which(name)
    path = (Path(base_dir) / os.path.expanduser(name)).resolve()
    return str(path) if path.is_file() and os.access(path, os.X_OK) else None


class AgentCliProvider(BaseProvider):
    """An agent program run once per case in its workspace; its events become the trace.
    A program module declares ``facts = ProviderFacts("agent", settings=…, program=…,
    secret_env=…)`` (``providers.facts``); ``facts.program`` is the default executable."""
    program: ClassVar[str] = "agent"
    install_hint: ClassVar[str] = ""
    env_names: ClassVar[tuple[str, ...]] = ()  # .env variables the program reads itself
    presets: ClassVar[dict[str, list[str]]] = {}
    system_prompt_flag: ClassVar[str | None] = None  # None: the system prompt leads the prompt
    failure_phrase: ClassVar[str] = "run failed"  # "<program> run failed: <its message>"

    def __init__(self, target):
        super().__init__(target)
        s, where = target.setting, target.where
        self.executable = s("executable", "command", "binary", default=self.facts.program)
        if not isinstance(self.executable, str) or not self.executable.strip():
            raise ConfigError(f"must be the {self.program} executable's name or path", where,
                              "executable")
        args = s("args", "arguments", default=[])
        self.args = [str(a) for a in (shlex.split(args) if isinstance(args, str) else args)]
        self.model = s("model")
        self.system_prompt = s("system_prompt", "systemPrompt")
        self.preset = self.check_preset(s("approval_preset", "approvalPreset",
                                          "permission_preset"), where)
        cwd = s("cwd")
        self.cwd = str((Path(target.base_dir) / os.path.expanduser(cwd)).resolve()) if cwd else None
        timeout = s("timeout_seconds", "timeoutSeconds")
        self.timeout_s = float(timeout) if timeout is not None else None
        log_dir = s("log_dir", "logDir", "log_directory")
        self.log_dir = (str((Path(target.base_dir) / log_dir).resolve()) if log_dir
                        else os.path.abspath(os.path.join(".agentv", "logs", self.program)))
        self._resolved: str | None = None

    # ---- what a program module implements
    def check_preset(self, preset: object, where: str) -> str | None:
        if preset is not None and preset not in self.presets:
            raise ConfigError(f"unknown approval_preset {preset!r} (known: "
                              f"{', '.join(self.presets)})", where, "approval_preset")
        return None if preset is None else str(preset)

    @abstractmethod
    def flags(self, ws: Workspace) -> list[str]:
        """The program's own flags for this case (model, permissions, output format)."""

    def program_env(self, ws: Workspace) -> dict[str, str]:
        return {}

    @abstractmethod
    def parse(self, lines: list[tuple[float, str]], ws: Workspace) -> AgentRun:
        """The program's event stream → answer, trace, usage."""

    # ---- shared
    def check(self) -> None:
        self._resolved = find_executable(self.executable, self.target.base_dir)
        if self._resolved is None:
            raise ConfigError(f"{self.program} executable {self.executable!r} not found "
                              f"(install it: {self.install_hint}, or set 'executable' to its "
                              "path)", self.target.where, "executable")
        if self.cwd and not Path(self.cwd).is_dir():
            raise ConfigError(f"directory {self.cwd!r} does not exist", self.target.where, "cwd")

    def argv(self, ws: Workspace) -> list[str]:
        exe = self._resolved or find_executable(self.executable, self.target.base_dir)
        if exe is None:
            raise ProviderError(f"{self.program} executable {self.executable!r} not found")
        return [exe, *self.flags(ws)]

    def agent_prompt(self, request: Request, files: dict[str, str] | None = None) -> str:
        """Exactly what the program gets on stdin: the pre-read links (to the files as
        mirrored into the workspace) and the task."""
        paths = [files.get(p, p) if files else p
                 for p in dict.fromkeys(request.guideline_paths + request.input_files)]
        prompt = linked_prompt(request.question, [p for p in paths if Path(p).is_file()])
        if self.system_prompt and not self.system_prompt_flag:
            return f"{self.system_prompt.strip()}\n\n{prompt}"
        return prompt

    def system_flags(self) -> list[str]:
        if self.system_prompt and self.system_prompt_flag:
            return [self.system_prompt_flag, self.system_prompt]
        return []

    async def invoke(self, request: Request) -> Response:
        return await run_in_workspace(self.program, request, self.cwd,
                                      lambda ws: self._run(request, ws))

    async def _run(self, request: Request, ws: Workspace) -> Response:
        argv = self.argv(ws)
        lines: list[tuple[float, str]] = []
        log.info("target %s, case %s: running %s (cwd=%s)", self.name, request.eval_id,
                 scrub(shlex.join(argv)), ws.path)
        started = time.perf_counter()
        env = child_env(self.env_names, self.program_env(ws))
        try:
            proc = await run_process(argv, cwd=str(ws.path), env=env,
                                     sandbox=self.sandbox_profile(ws, env),
                                     stdin=self.agent_prompt(request, ws.files),
                                     timeout=self.timeout_s,
                                     on_stdout_line=lambda l: lines.append((time.time(), l)))
        except ProcessTimeout:
            self._save_log(request, lines, "")
            raise ProviderTimeout(f"{self.program} timed out after {self.timeout_s:g}s "
                                  f"({self.program} and its tool processes killed)") from None
        latency = (time.perf_counter() - started) * 1000.0
        self._save_log(request, lines, proc.stderr)
        run = self._checked(lines, proc, ws)
        calls = [{"tool": e.name, "input": e.arguments, "output": e.result}
                 for e in run.trace if e.type == "tool_call"]
        message = {"role": "assistant", "content": run.text,
                   **({"tool_calls": calls} if calls else {})}
        return Response(text=run.text, output_messages=[message], trace=run.trace,
                        usage=run.usage, latency_ms=latency,
                        raw={"exit_code": proc.returncode, "events": len(lines),
                             **({"duration_ms": run.duration_ms} if run.duration_ms else {})})

    def sandbox_profile(self, ws: Workspace, env: dict[str, str]) -> Profile:
        """The agent's sandbox: its workspace and agentv's side folder for it writable, and
        the config folders its declared variables name (``CODEX_HOME``…), the network its
        ``network`` setting says (default: full — it calls its model)."""
        state = [v for k, v in env.items() if k.endswith(("_HOME", "_DIR"))
                 and k in self.env_names and os.path.isdir(v)]
        scratch = [str(ws.root)] if ws.root is not None else [str(ws.path), str(ws.side)]
        return target_profile(self.target.setting, self.target.where, "agent",
                              writable=[*scratch, *state])

    def _checked(self, lines: list[tuple[float, str]], proc: ProcessResult,
                 ws: Workspace) -> AgentRun:
        """The run, or the program's own failure message, else its exit code and stderr."""
        details = proc.details()
        try:
            run = self.parse(lines, ws)
        except MalformedStream as err:
            proc.check_exit(self.program)
            raise ProviderError(f"{self.program} output is malformed: {err}",
                                details=details) from None
        for warning in run.warnings:
            log.info("target %s: %s warning: %s", self.name, self.program, warning)
        if run.failure:
            raise ProviderError(f"{self.program} {self.failure_phrase}: {run.failure}",
                                details=details)
        proc.check_exit(self.program)
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
            log.warning("target %s: cannot write %s log under %s: %s", self.name,
                        self.program, self.log_dir, err)
