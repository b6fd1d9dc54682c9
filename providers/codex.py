"""``provider: codex`` — OpenAI's Codex CLI as an agent target (``codex exec --json``).

Settings: ``executable`` (default ``codex``; a name on PATH or a path relative to the
targets file), ``args`` (extra arguments before ``exec``), ``profile``, ``model``,
``approval_preset`` (``read-only`` | ``auto`` | ``full-access``, or a Codex approval policy:
``untrusted`` | ``on-failure`` | ``on-request`` | ``never``), ``cwd``, ``timeout_seconds``,
``log_dir`` (raw event streams, one file per case attempt).

Each case runs in a fresh scratch workspace holding copies of its guideline and attachment
files; the prompt (on stdin, also saved as ``prompt.md``) opens with a block asking the
agent to read every one of them. The JSONL event stream gives the final assistant message,
the trace (tool calls with timings, one LLM call per turn) and token usage.
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
from providers.cli_settings import check_cwd, directory, seconds
from providers.codex_events import MalformedStream, parse_stream
from providers.preread import mirror_files, workspace_prompt
from providers.environment import child_env
from providers.process import ProcessTimeout, run_process
from providers.secrets import scrub

log = logging.getLogger("agentv.codex")
APPROVAL_PRESETS = {
    "read-only": ["--sandbox", "read-only", "--ask-for-approval", "never"],
    "auto": ["--full-auto"],
    "full-access": ["--dangerously-bypass-approvals-and-sandbox"],
    **{p: ["--ask-for-approval", p] for p in ("untrusted", "on-failure", "on-request", "never")},
}
# the .env variables codex itself reads (everything else in .env stays out of its environment)
CODEX_ENV = ("OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL", "CODEX_HOME")
EXEC_ARGS = ["exec", "--json", "--color", "never", "--skip-git-repo-check", "-"]


def find_executable(name: str, base_dir: str) -> str | None:
    """A bare name is looked up on PATH; a path is taken relative to ``base_dir``."""
    if os.sep not in name and "/" not in name:
        return shutil.which(name)
    path = (Path(base_dir) / os.path.expanduser(name)).resolve()
    return str(path) if path.is_file() and os.access(path, os.X_OK) else None


class CodexProvider(BaseProvider):
    kind = "codex"
    is_agent = True

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
        preset = s("approval_preset", "approvalPreset")
        if preset is not None and preset not in APPROVAL_PRESETS:
            raise ConfigError(f"unknown approval_preset {preset!r} (known: "
                              f"{', '.join(APPROVAL_PRESETS)})", where, "approval_preset")
        self.preset = preset
        self.profile, self.model = s("profile"), s("model")
        self.cwd = directory(s("cwd"), target.base_dir, where, "cwd")
        self.timeout_s = seconds(s("timeout_seconds", "timeoutSeconds"), where, "timeout_seconds")
        self.log_dir = directory(s("log_dir", "logDir"), target.base_dir, where, "log_dir")
        self._resolved: str | None = None

    def check(self) -> None:
        self._resolved = find_executable(self.executable, self.target.base_dir)
        if self._resolved is None:
            raise ConfigError(f"codex executable {self.executable!r} not found (install the Codex "
                              "CLI, e.g. 'npm install -g @openai/codex', or set 'executable' to "
                              "its path)", self.target.where, "executable")
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
        return argv + APPROVAL_PRESETS.get(self.preset, []) + EXEC_ARGS

    async def invoke(self, request: Request) -> Response:
        workspace = Path(tempfile.mkdtemp(prefix="agentv-codex-"))
        try:
            mirrored = mirror_files(request.guideline_paths + request.input_files, workspace)
            if self.cwd:  # codex works elsewhere: point at the copies by absolute path
                mirrored = {src: str(workspace / rel) for src, rel in mirrored.items()}
            prompt = workspace_prompt(request.question, mirrored)
            (workspace / "prompt.md").write_text(prompt, encoding="utf-8")
            return await self._run(request, prompt, workspace)
        finally:
            shutil.rmtree(workspace, ignore_errors=True)

    async def _run(self, request: Request, prompt: str, workspace: Path) -> Response:
        argv = self.argv()
        lines: list[tuple[float, str]] = []
        cwd = self.cwd or str(workspace)
        log.info("target %s, case %s: running %s (cwd=%s)", self.name, request.eval_id,
                 shlex.join(argv), cwd)
        started = time.perf_counter()
        try:
            proc = await run_process(argv, cwd=cwd, stdin=prompt, timeout=self.timeout_s,
                                     env=child_env(CODEX_ENV),
                                     on_stdout_line=lambda l: lines.append((time.time(), l)))
        except ProcessTimeout:
            self._save_log(request, lines, "")
            raise ProviderTimeout(f"codex timed out after {self.timeout_s:g}s (process group "
                                  "killed)") from None
        latency = (time.perf_counter() - started) * 1000.0
        self._save_log(request, lines, proc.stderr)
        proc.check_exit("codex")
        details = proc.details()
        try:
            run = parse_stream(lines, self.model)
        except MalformedStream as err:
            raise ProviderError(f"codex output is malformed: {err}", details=details) from None
        if run.failure and not run.text:
            raise ProviderError(f"codex reported an error: {run.failure}", details=details)
        calls = [{"tool": e.name, "input": e.arguments, "output": e.result}
                 for e in run.trace if e.type == "tool_call"]
        message = {"role": "assistant", "content": run.text, **({"tool_calls": calls}
                                                                 if calls else {})}
        return Response(text=run.text, output_messages=[message], trace=run.trace,
                        usage=run.usage, latency_ms=latency,
                        raw={"exit_code": proc.returncode, "events": len(lines)})

    def _save_log(self, request: Request, lines: list[tuple[float, str]], stderr: str) -> None:
        if not self.log_dir:
            return
        stamp = datetime.now().strftime("%Y%m%dT%H%M%S")
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in request.eval_id)
        base = Path(self.log_dir) / f"{stamp}_{self.name}_{safe}_attempt-{request.attempt}"
        try:
            base.parent.mkdir(parents=True, exist_ok=True)
            Path(f"{base}.jsonl").write_text(scrub("".join(l for _, l in lines)),
                                             encoding="utf-8")
            if stderr.strip():
                Path(f"{base}.stderr.log").write_text(scrub(stderr), encoding="utf-8")
        except OSError as err:
            log.warning("target %s: cannot write codex log under %s: %s", self.name,
                        self.log_dir, err)
