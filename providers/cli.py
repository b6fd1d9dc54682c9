"""``provider: cli`` — any command becomes an agent target through a command template.

Placeholders ``{PROMPT}`` (the agent prompt with its "read these files first" block),
``{GUIDELINES}`` (guideline file contents), ``{EVAL_ID}``, ``{ATTEMPT}``, ``{FILES}`` (every
referenced file, guidelines included, each rendered with ``files_format``),
``{ATTACHMENTS}`` (non-guideline files, ``attachments_format``) and ``{OUTPUT_FILE}``
(a fresh path the command writes its answer to) are substituted into an argv — no shell
(see ``providers.template``). The answer is the content of ``{OUTPUT_FILE}`` when the
template uses it, else stdout; it may follow AgentV's JSON convention
(``providers.agent_output``). stderr goes to the verbose log and, on failure, into the
record with the exit code. A timeout kills the whole process group and is retryable.

``provider_batching: true`` runs ``batch_command_template`` (default: ``command_template``)
once for many cases: JSONL requests on stdin, JSONL answers keyed by ``id`` on stdout or in
``{OUTPUT_FILE}`` (``providers.batch``).
"""
from __future__ import annotations

import logging
import os
import re
import shlex
import tempfile
import time
from pathlib import Path

from providers.agent_output import AgentOutput, parse_output
from providers.base import BaseProvider, ProviderError, ProviderTimeout, Request, Response
from providers.batch import batch_input, map_answers, parse_batch_output
from providers.cli_settings import check_cwd, load_cli_config, probe, resolve_env
from providers.process import TAIL, ProcessResult, ProcessTimeout, run_process
from providers.secrets import tail
from providers.template import CommandTemplate

log = logging.getLogger("agentv.cli")


class CliProvider(BaseProvider):
    kind = "cli"
    is_agent = True
    supports_batch = True

    def __init__(self, target):
        super().__init__(target)
        self.config = load_cli_config(target)
        self._env: dict[str, str] | None = None

    def check(self) -> None:
        """Static checks, then the healthcheck (once, before the first case)."""
        check_cwd(self.config.cwd, self.target.where)
        self._env = resolve_env(self.config.env_names, self.target.where)
        if self.config.healthcheck is not None:
            probe(self.config.healthcheck, self.config, self._env, self.target)
            log.info("target %s: healthcheck passed", self.name)

    @property
    def env(self) -> dict[str, str]:
        if self._env is None:
            self._env = resolve_env(self.config.env_names, self.target.where)
        return self._env

    async def invoke(self, request: Request) -> Response:
        with tempfile.TemporaryDirectory(prefix="agentv-cli-") as tmp:
            out_file = os.path.join(tmp, f"{_safe(request.eval_id)}.out")
            argv = self._render(self.config.command, request, out_file)
            started = time.perf_counter()
            proc = await self._run(argv, request.eval_id, None, self.config.timeout_s,
                                   self._cwd(request))
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
            argv = template.render(
                {"EVAL_ID": "batch", "ATTEMPT": "1", "OUTPUT_FILE": out_file},
                {"FILES": (self.config.files_format, files),
                 "ATTACHMENTS": (self.config.attachments_format, attachments)})
            started = time.perf_counter()
            proc = await self._run(argv, f"batch of {len(requests)}", batch_input(requests),
                                   timeout, self._cwd(requests[0]) if requests else None)
            latency = (time.perf_counter() - started) * 1000.0
            text = self._answer(template, proc, out_file, argv)
        records = parse_batch_output(text, self.name)
        raw = {"exit_code": proc.returncode, "batch_size": len(requests)}
        return map_answers(requests, records, latency, raw)

    def _render(self, template: CommandTemplate, request: Request, out_file: str) -> list[str]:
        values = {"PROMPT": request.question, "GUIDELINES": request.guidelines,
                  "EVAL_ID": request.eval_id, "ATTEMPT": str(request.attempt),
                  "OUTPUT_FILE": out_file}
        files = _unique(request.guideline_paths + request.input_files)
        return template.render(values, {
            "FILES": (self.config.files_format, files),
            "ATTACHMENTS": (self.config.attachments_format, _unique(request.input_files))})

    def _cwd(self, request: Request) -> str | None:
        """The configured ``cwd``, else (AgentV) the directory of the case's eval file."""
        if self.config.cwd:
            return self.config.cwd
        file = request.metadata.get("file")
        return os.path.dirname(os.path.abspath(file)) if file else None

    async def _run(self, argv: list[str], label: str, stdin: str | None,
                   timeout: float | None, cwd: str | None = None) -> ProcessResult:
        log.info("target %s, %s: running %s (cwd=%s)", self.name, label,
                 _shorten(shlex.join(argv)), cwd or os.getcwd())
        try:
            proc = await run_process(argv, cwd=cwd, env=self.env, stdin=stdin,
                                     timeout=timeout)
        except ProcessTimeout:
            raise ProviderTimeout(f"command timed out after {timeout:g}s (process group "
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


def _unique(paths) -> list[str]:
    seen: dict[str, None] = {}
    for p in paths:
        if p:
            seen.setdefault(str(p), None)
    return list(seen)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:80] or "case"


def _shorten(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} chars)"
