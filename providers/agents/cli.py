"""``provider: cli`` — any command becomes an agent target through a command template.

Placeholders ``{PROMPT_FILE}`` (a file holding the question: the documented way, with
``$AGENTV_PROMPT`` and ``prompt_via: stdin``), ``{PROMPT}`` (the request's question,
files as ``<file: path="…">`` references),
``{GUIDELINES}`` (guideline file contents), ``{EVAL_ID}``, ``{ATTEMPT}``, ``{FILES}`` (every
referenced file, guidelines included, each rendered with ``files_format``),
``{ATTACHMENTS}`` (non-guideline files, ``attachments_format``), ``{OUTPUT_FILE}``
(a fresh path the command writes its answer to) and ``{PROMPT_FILE}`` (AgentV 4.x's: a file
holding the question) are substituted into an argv — no shell
(see ``providers.process.template``); they are also in the environment as ``AGENTV_PROMPT``,
``AGENTV_EVAL_ID``… The command runs in the eval file's directory unless ``cwd`` says
otherwise (relative to that directory, as AgentV resolves it: ``providers.agents.cli_cwd``),
or, when the suite has a ``workspace`` and the target no ``cwd``, in a fresh copy of that
workspace per case whose changes are the record's ``file_changes`` (as AgentV runs it);
its stdin is /dev/null unless ``prompt_via: stdin``, which writes the prompt there and closes
it. The answer is the content of ``{OUTPUT_FILE}`` when the template uses it, else stdout;
it may follow AgentV's JSON convention (``providers.agents.output``). stderr goes to the
verbose log and, on failure, into the record with the exit code. A timeout kills the
whole process tree and is retryable.

``provider_batching: true`` runs ``batch_command_template`` (default: ``command_template``)
once for many cases: JSONL requests on stdin, JSONL answers keyed by ``id`` on stdout or in
``{OUTPUT_FILE}`` (``providers.agents.batch``).
"""
from __future__ import annotations

import logging
import os
import re
import shlex
import tempfile
import time
from pathlib import Path

from agentv.providers.agents.batch import batch_input, map_answers, parse_batch_output
from agentv.providers.agents.cli_cwd import check_cwd, cwd_origin, resolve_cwd
from agentv.providers.agents.cli_settings import (
    CliConfig,
    CliSettings,
    load_cli_config,
    probe,
    resolve_env,
)
from agentv.providers.agents.output import AgentOutput, parse_output
from agentv.providers.agents.workspace import run_in_workspace
from agentv.providers.base import (
    BaseProvider,
    ConfigError,
    ProviderError,
    ProviderTimeout,
    Request,
    Response,
    Target,
)
from agentv.providers.facts import ProviderFacts
from agentv.providers.process.sandbox import target_profile
from agentv.providers.process.supervision import TAIL, ProcessResult, ProcessTimeout, run_process
from agentv.providers.process.template import CommandTemplate, FileFormat, environment
from agentv.providers.secrets import tail

log = logging.getLogger("agentv.cli")


class CliProvider(BaseProvider):
    """Any command as an agent target through `command_template` placeholders (argv, never a
    shell line); `provider_batching` runs many cases in one call."""
    kind = "cli"
    facts = ProviderFacts("command", settings=CliSettings, batching=True)

    def __init__(self, target):
        super().__init__(target)
        self.config = load_cli_config(target)
        if self.config.prompt_via == "stdin" and "PROMPT" in self.config.command.uses:
            raise ConfigError("prompt_via: stdin sends the prompt on stdin; drop {PROMPT} from "
                              "command_template (or drop prompt_via)", target.where, "prompt_via")
        stdin_check(self.config, target)
        self._env: dict[str, str] | None = None
        self.eval_dirs: list[str | None] = [None]

    def use_eval_dirs(self, dirs: list[str]) -> None:
        """The directories of the eval files this target will run (cwd and healthcheck)."""
        self.eval_dirs = [*sorted(set(dirs))] or [None]

    def cwd(self, eval_dir: str | None) -> str | None:
        return resolve_cwd(self.config.cwd, eval_dir, self.target.base_dir)

    def check(self) -> None:
        """Static checks, then the healthcheck (once per working directory, before the
        first case), run where the cases will run."""
        cwds = {d: self.cwd(d) for d in self.eval_dirs}
        for eval_dir, cwd in cwds.items():
            check_cwd(cwd, self.target.where, "cwd",
                      cwd_origin(self.config.cwd, eval_dir, self.target.base_dir))
        self._env = resolve_env(self.config.env_names, self.target.where)
        if self.config.healthcheck is not None:
            for eval_dir, cwd in cwds.items():
                probe(self.config.healthcheck, cwd, eval_dir, self._env, self.target)
            log.info("target %s: healthcheck passed", self.name)

    @property
    def env(self) -> dict[str, str]:
        if self._env is None:
            self._env = resolve_env(self.config.env_names, self.target.where)
        return self._env

    async def invoke(self, request: Request) -> Response:
        """The command runs in the case's workspace when the suite has one (a fresh copy of
        its template, as AgentV runs a cli target) and the target names no ``cwd``."""
        if request.workspace is not None and self.config.cwd is None:
            return await run_in_workspace("cli", request, None,
                                          lambda ws: self._invoke(request, str(ws.path)))
        return await self._invoke(request, None)

    async def _invoke(self, request: Request, workspace: str | None) -> Response:
        with tempfile.TemporaryDirectory(prefix="agentv-cli-") as tmp:
            out_file = os.path.join(tmp, f"{_safe(request.eval_id)}.out")
            argv, env = self._render(self.config.command, request, out_file)
            stdin = request.question if self.config.prompt_via == "stdin" else None
            started = time.perf_counter()
            proc = await self._run(argv, env, _eval_dir(request), request.eval_id, stdin,
                                   self.config.timeout_s, workspace, tmp)
            latency = (time.perf_counter() - started) * 1000.0
            raw = self._answer(self.config.command, proc, out_file, argv)
        fmt = self.config.output_format
        parsed = (AgentOutput(text=raw) if fmt == "text"
                  else parse_output(raw, announced=fmt == "json"))
        if parsed.warning:
            log.warning("target %s, case %s: %s", self.name, request.eval_id, parsed.warning)
        return Response(text=parsed.text, output_messages=parsed.output_messages,
                        trace=parsed.trace, usage=parsed.usage,
                        latency_ms=parsed.duration_ms if parsed.duration_ms is not None
                        else latency,
                        raw={"exit_code": proc.returncode, "stderr": tail(proc.stderr, TAIL)})

    async def invoke_batch(self, requests: list[Request]) -> list[Response | ProviderError]:
        """All ``requests`` in one run of the batch command; raises when the batch as a
        whole failed (the caller then dispatches the cases one by one)."""
        template = self.config.batch_command or self.config.command
        timeout = self.config.batch_timeout_s or self.config.timeout_s
        with tempfile.TemporaryDirectory(prefix="agentv-batch-") as tmp:
            out_file = os.path.join(tmp, "batch.jsonl")
            files = _unique(p for r in requests for p in r.guideline_paths + r.input_files)
            attachments = _unique(p for r in requests for p in r.input_files)
            values = {"EVAL_ID": "batch", "ATTEMPT": "1", "OUTPUT_FILE": out_file,
                      "PROMPT_FILE": _prompt_file(tmp, batch_input(requests))}
            lists = {"FILES": (self.config.files_format, files),
                     "ATTACHMENTS": (self.config.attachments_format, attachments)}
            argv = template.render(values, lists)
            started = time.perf_counter()
            proc = await self._run(argv, {**self.env, **environment(values, lists)},
                                   _eval_dir(requests[0]), f"batch of {len(requests)}",
                                   batch_input(requests), timeout, scratch=tmp)
            latency = (time.perf_counter() - started) * 1000.0
            text = self._answer(template, proc, out_file, argv)
        records = parse_batch_output(text, self.name)
        raw = {"exit_code": proc.returncode, "batch_size": len(requests)}
        return map_answers(requests, records, latency, raw)

    def _render(self, template: CommandTemplate, request: Request, out_file: str
                ) -> tuple[list[str], dict[str, str]]:
        """The argv and the environment (``AGENTV_*`` values over the target's env)."""
        values = {"PROMPT": request.question, "GUIDELINES": request.guidelines,
                  "EVAL_ID": request.eval_id, "ATTEMPT": str(request.attempt),
                  "OUTPUT_FILE": out_file}
        if "PROMPT_FILE" in template.uses:  # the prompt as a file: data by construction
            values["PROMPT_FILE"] = os.path.join(os.path.dirname(out_file), "prompt.txt")
            Path(values["PROMPT_FILE"]).write_text(request.question, encoding="utf-8")
        if "PROMPT_FILE" in template.uses:  # AgentV 4.x: the prompt in a file
            values["PROMPT_FILE"] = _prompt_file(os.path.dirname(out_file), request.question)
        files: dict[str, tuple[FileFormat, list[str]]] = {
            "FILES": (self.config.files_format,
                      _unique(request.guideline_paths + request.input_files)),
            "ATTACHMENTS": (self.config.attachments_format, _unique(request.input_files))}
        return template.render(values, files), {**self.env, **environment(values, files)}

    async def _run(self, argv: list[str], env: dict[str, str], eval_dir: str | None, label: str,
                   stdin: str | None, timeout: float | None,
                   workspace: str | None = None, scratch: str | None = None) -> ProcessResult:
        """Runs in the target's sandbox: its scratch (the case's workspace and output
        folder) writable, the folder it runs in (the suite's, when no workspace) seen through
        a throwaway copy (``providers.process.overlay``), the network its ``network`` setting
        says."""
        cwd = workspace or self.cwd(eval_dir)
        declared = [env[k] for k in self.config.env_names if os.path.isdir(env.get(k, ""))]
        profile = target_profile(self.target.setting, self.target.where, "target",
                                 writable=[p for p in (workspace, scratch) if p],
                                 readable=declared,  # folders its own `env` names
                                 overlay=[cwd] if cwd and not workspace else [])
        log.info("target %s, %s: running %s (cwd=%s)", self.name, label,
                 _shorten(shlex.join(argv)), cwd or os.getcwd())
        try:
            proc = await run_process(argv, cwd=cwd, env=env, stdin=stdin, timeout=timeout,
                                     sandbox=profile)
        except ProcessTimeout:
            raise ProviderTimeout(f"command timed out after {timeout:g}s (process tree "
                                  "killed)", details={"command": argv[0],
                                                      "timeout_seconds": timeout}) from None
        except OSError as err:
            raise ProviderError(f"cannot run {argv[0]!r}: {err.strerror or err}",
                                details={"command": argv[0]}) from None
        if proc.stderr.strip():
            log.info("target %s, %s: stderr:\n%s", self.name, label,
                     tail(proc.stderr, TAIL).rstrip())
        proc.check_exit("command", command=argv[0])
        return proc

    def _answer(self, template: CommandTemplate, proc: ProcessResult, out_file: str,
                argv: list[str]) -> str:
        if "OUTPUT_FILE" not in template.uses:
            return proc.stdout[:-1] if proc.stdout.endswith("\n") else proc.stdout
        try:
            return Path(out_file).read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            raise ProviderError("the command exited 0 but did not write {OUTPUT_FILE}",
                                details=proc.details(command=argv[0])) from None


def _prompt_file(folder: str, text: str | None) -> str:
    path = os.path.join(folder, "prompt.txt")
    Path(path).write_text(text or "", encoding="utf-8")
    return path


def _eval_dir(request: Request) -> str | None:
    file = request.eval_file
    return os.path.dirname(os.path.abspath(file)) if file else None


def _unique(paths) -> list[str]:
    seen: dict[str, None] = {}
    for p in paths:
        if p:
            seen.setdefault(str(p), None)
    return list(seen)


def stdin_check(config: CliConfig, target: Target) -> list[str]:
    """Lints: stdin is data only for a program that does not read its code from it (``sh``,
    ``python3`` without a script, ``perl -``); the prompt (``prompt_via: stdin``) or the
    batch's cases (``provider_batching``) sent there run inside the sandbox, but as code."""
    command, found = config.command, []
    if config.prompt_via == "stdin" and command.stdin_code:
        found.append(f"prompt_via: stdin sends the prompt to {command.stdin_code}, so it "
                     "runs as code; pass it as {PROMPT_FILE} or read $AGENTV_PROMPT instead")
    batch = config.batch_command or command
    if target.provider_batching and batch.stdin_code:
        found.append(f"provider_batching sends the cases on stdin to {batch.stdin_code}, so "
                     "they run as code; run a program that reads them as data")
    for message in found:
        log.warning("%s: target '%s': %s", target.where, target.name, message)
    return found


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:80] or "case"


def _shorten(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} chars)"
