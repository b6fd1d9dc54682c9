"""Settings of ``provider: cli`` targets, checked up front, and the healthcheck probe.

Settings (snake_case or camelCase): ``command_template`` (required), ``batch_command_template``,
``files_format`` / ``attachments_format``, ``cwd`` (default: the eval file's directory; a
relative path is resolved against it, as AgentV does: ``providers.agents.cli_cwd``),
``prompt_via`` (``argv`` | ``stdin``: with ``stdin`` the prompt is written to the command's
stdin and closed; otherwise stdin is /dev/null),
``env`` (``NAME: ENV_VAR_NAME`` → value of that variable, merged over the process
environment), ``timeout_seconds``, ``batch_timeout_seconds``, ``output_format``
(``auto`` | ``json`` | ``text``), ``healthcheck`` (``{type: http, url, timeout_seconds?}`` or
``{type: command, command_template, cwd?, timeout_seconds?}``), ``network``
(``none`` | ``loopback`` | ``full``, the sandbox's; default ``full``) and ``sandbox``
(``off``: no OS sandbox for this target; ``providers.process.sandbox``).
"""
from __future__ import annotations

import os
import re
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, field_validator, model_validator

from agentv.providers.agents.cli_cwd import check_cwd, cwd_origin, relative_dir, resolve_cwd
from agentv.providers.base import ConfigError, Target
from agentv.providers.base_settings import Float, NumbersNotText, ProviderSettings, setting_field
from agentv.providers.base_settings import seconds as base_seconds
from agentv.providers.process.sandbox import target_profile
from agentv.providers.process.supervision import ProcessTimeout, run_process_sync
from agentv.providers.process.template import CommandTemplate, FileFormat
from agentv.providers.secrets import tail

OUTPUT_FORMATS = ("auto", "json", "text")
PROMPT_VIA = ("argv", "stdin")
HEALTHCHECK_TYPES = ("http", "command")
DEFAULT_HEALTHCHECK_TIMEOUT_S = 30.0
_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")


@dataclass
class Healthcheck:
    type: str
    url: str | None = None
    command: CommandTemplate | None = None
    cwd: str | None = None
    timeout_s: float = DEFAULT_HEALTHCHECK_TIMEOUT_S


@dataclass
class CliConfig:
    command: CommandTemplate
    batch_command: CommandTemplate | None = None
    files_format: FileFormat = field(default_factory=lambda: FileFormat.parse(None, "", ""))
    attachments_format: FileFormat = field(default_factory=lambda: FileFormat.parse(None, "", ""))
    cwd: str | None = None
    env_names: dict[str, str] = field(default_factory=dict)
    timeout_s: float | None = None
    batch_timeout_s: float | None = None
    output_format: str = "auto"
    healthcheck: Healthcheck | None = None
    prompt_via: str = "argv"


def seconds(value: Any, where: str, name: str) -> float | None:
    """A timeout: absent, or a number > 0 (``0`` would kill every case at once)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ConfigError(f"must be a number of seconds greater than 0, got {value!r}", where,
                          name)
    return float(value)


def directory(value: Any, base_dir: str, where: str, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError("must be a directory path", where, name)
    return str((Path(base_dir) / os.path.expanduser(value)).resolve())


def load_cli_config(target: Target) -> CliConfig:
    s, where = target.setting, target.where
    files_format = FileFormat.parse(s("files_format", "filesFormat"), where, "files_format")
    attach = s("attachments_format", "attachmentsFormat")
    batch = s("batch_command_template", "batchCommandTemplate")
    env = s("env", default={})
    if not isinstance(env, dict) or not all(isinstance(v, (str, int, float)) for v in env.values()):
        raise ConfigError("must be a mapping of NAME: ENV_VAR_NAME", where, "env")
    output_format = s("output_format", "outputFormat", default="auto")
    if output_format not in OUTPUT_FORMATS:
        raise ConfigError(f"must be one of {', '.join(OUTPUT_FORMATS)}, got {output_format!r}",
                          where, "output_format")
    return CliConfig(
        command=CommandTemplate(s("command_template", "commandTemplate", "command"), where),
        batch_command=CommandTemplate(batch, where, "batch_command_template") if batch else None,
        files_format=files_format,
        attachments_format=(FileFormat.parse(attach, where, "attachments_format")
                            if attach is not None else files_format),
        cwd=relative_dir(s("cwd"), where, "cwd"),
        env_names={str(k): str(v) for k, v in env.items()},
        timeout_s=seconds(s("timeout_seconds", "timeoutSeconds"), where, "timeout_seconds"),
        batch_timeout_s=seconds(s("batch_timeout_seconds", "batchTimeoutSeconds"), where,
                                "batch_timeout_seconds"),
        output_format=output_format,
        healthcheck=load_healthcheck(s("healthcheck"), target),
        prompt_via=prompt_via(s("prompt_via", "promptVia"), where),
    )


def prompt_via(value: Any, where: str) -> str:
    value = "argv" if value is None else value
    if value not in PROMPT_VIA:
        raise ConfigError(f"must be one of {', '.join(PROMPT_VIA)}, got {value!r}", where,
                          "prompt_via")
    return value


def load_healthcheck(value: Any, target: Target) -> Healthcheck | None:
    if value is None:
        return None
    where = target.where
    if not isinstance(value, dict):
        raise ConfigError("must be a mapping with a 'type' (http or command)", where, "healthcheck")
    kind = value.get("type") or ("http" if "url" in value else "command")  # AgentV 4.x: no type
    if kind not in HEALTHCHECK_TYPES:
        raise ConfigError(f"unknown healthcheck type {kind!r} (expected http or command)", where,
                          "healthcheck.type")
    timeout = seconds(value.get("timeout_seconds", value.get("timeoutSeconds")), where,
                      "healthcheck.timeout_seconds") or DEFAULT_HEALTHCHECK_TIMEOUT_S
    if kind == "http":
        url = value.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ConfigError("needs an http(s) url", where, "healthcheck.url")
        if "@" in urllib.parse.urlsplit(url).netloc:  # urllib would dial 'pw@host' as a host
            raise ConfigError("user:password@ in the URL is not supported (the probe sends no "
                              "credentials; use a command healthcheck, e.g. curl -u)", where,
                              "healthcheck.url")
        return Healthcheck("http", url=url, timeout_s=timeout)
    template = value.get("command_template", value.get("commandTemplate", value.get("command")))
    return Healthcheck("command", timeout_s=timeout,
                       command=CommandTemplate(template, where, "healthcheck.command_template"),
                       cwd=relative_dir(value.get("cwd"), where, "healthcheck.cwd"))


def resolve_env(names: dict[str, str], where: str) -> dict[str, str]:
    """The OS environment (not the whole .env: ``providers.process.environment``) with
    ``env`` merged over it; a value that looks like a variable name is that variable's value
    (unset → configuration error)."""
    from agentv.providers.process.environment import child_env
    env = child_env()
    for key, value in names.items():
        if _ENV_NAME.match(value):
            if value not in os.environ:
                raise ConfigError(f"environment variable {value} is not set", where, f"env.{key}")
            value = os.environ[value]
        env[key] = value
    return env


def probe(check: Healthcheck, case_cwd: str | None, eval_dir: str | None, env: dict[str, str],
          target: Target) -> None:
    """Run the healthcheck once, where the cases run (its own ``cwd`` is resolved like the
    target's); a failure is a configuration error naming what failed."""
    label = f"healthcheck of target '{target.name}' failed"
    if check.type == "http" and check.url is not None:  # the settings model requires it
        try:
            with urllib.request.urlopen(check.url, timeout=check.timeout_s) as resp:
                status = resp.status
        except urllib.error.HTTPError as err:
            status = err.code
        except (urllib.error.URLError, OSError) as err:
            reason = getattr(err, "reason", err)
            raise ConfigError(f"{label}: GET {check.url}: {reason}", target.where,
                              "healthcheck") from None
        if status >= 400:
            raise ConfigError(f"{label}: GET {check.url} returned HTTP {status}", target.where,
                              "healthcheck")
        return
    cwd = resolve_cwd(check.cwd, eval_dir, target.base_dir) if check.cwd else case_cwd
    check_cwd(cwd, target.where, "healthcheck.cwd",
              cwd_origin(check.cwd, eval_dir, target.base_dir, "healthcheck.cwd"))
    _probe_command(check, cwd, env, target, label)


def _probe_command(check: Healthcheck, cwd: str | None, env: dict[str, str], target: Target,
                   label: str) -> None:
    if check.command is None:  # the settings model requires it for a command healthcheck
        raise ConfigError(f"{label}: no command_template", target.where, "healthcheck")
    with tempfile.TemporaryDirectory(prefix="agentv-health-") as tmp:
        argv = check.command.render({"EVAL_ID": "healthcheck", "ATTEMPT": "0",
                                     "OUTPUT_FILE": os.path.join(tmp, "healthcheck.out")}, {})
        try:
            result = run_process_sync(argv, cwd=cwd, env=env, timeout=check.timeout_s,
                                      sandbox=target_profile(target.setting, target.where,
                                                             "healthcheck", writable=[tmp],
                                                             overlay=[cwd] if cwd else []))
        except ProcessTimeout:
            raise ConfigError(f"{label}: command timed out after {check.timeout_s:g}s",
                              target.where, "healthcheck") from None
        except OSError as err:
            raise ConfigError(f"{label}: cannot run {argv[0]!r}: {err.strerror or err}",
                              target.where, "healthcheck") from None
    if result.returncode != 0:
        detail = tail(result.stderr.strip() or result.stdout.strip(), 500)
        raise ConfigError(f"{label}: command exited with code {result.returncode}"
                          + (f": {detail}" if detail else ""), target.where, "healthcheck")


# ------------------------------------------------------------------ typed settings model
def _template(value: Any, name: str, required: bool = True) -> Any:
    """A command template is parsed once here, so ``{NOPE}`` and unbalanced quotes are
    configuration errors before any case runs."""
    if value is None and not required:
        return None
    try:
        CommandTemplate(value, "", name)
    except ConfigError as err:
        raise ValueError(err.message) from None
    return value


def _file_format(value: Any, name: str) -> Any:
    try:
        FileFormat.parse(value, "", name)
    except ConfigError as err:
        raise ValueError(err.message) from None
    return value


class HealthcheckSettings(NumbersNotText):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)
    type: Literal["http", "command"] | None = None  # AgentV 4.x leaves it out: from url/command
    url: str | None = setting_field("url", url=True)
    command_template: str | None = setting_field("command_template", "commandTemplate", "command")
    cwd: str | None = None
    timeout_seconds: Float | None = base_seconds("timeout_seconds", "timeoutSeconds")

    @model_validator(mode="after")
    def _complete(self) -> "HealthcheckSettings":
        self.type = self.type or ("http" if self.url else "command")
        if self.type == "http" and not (self.url or "").startswith(("http://", "https://")):
            raise ValueError("an http healthcheck needs an http(s) url")
        if self.type == "command":
            _template(self.command_template, "healthcheck.command_template")
        return self


class CliSettings(ProviderSettings):
    """``provider: cli`` settings (see the module docstring)."""

    command_template: str = setting_field("command_template", "commandTemplate", "command",
                                          default=...,
                                    description="argv template with {PROMPT}, {FILES}, ...")
    batch_command_template: str | None = setting_field("batch_command_template",
                                                 "batchCommandTemplate")
    files_format: str | None = setting_field("files_format", "filesFormat")
    attachments_format: str | None = setting_field("attachments_format", "attachmentsFormat")
    cwd: str | None = setting_field("cwd", description="relative to the targets file")
    env: dict[str, str | int | float] | None = setting_field(
        "env", description="NAME: ENV_VAR_NAME (or a literal value)")
    timeout_seconds: Float | None = base_seconds("timeout_seconds", "timeoutSeconds")
    batch_timeout_seconds: Float | None = base_seconds("batch_timeout_seconds",
                                                       "batchTimeoutSeconds")
    output_format: Literal["auto", "json", "text"] = setting_field("output_format", "outputFormat",
                                                             default="auto")
    healthcheck: HealthcheckSettings | None = setting_field("healthcheck")
    prompt_via: Literal["argv", "stdin"] | None = setting_field(
        "prompt_via", "promptVia", description="stdin: the prompt on the command's stdin")
    network: Literal["none", "loopback", "full"] | None = setting_field(
        "network", description="the sandbox's network: none | loopback | full (default)")
    sandbox: bool | Literal["on", "off"] | None = setting_field(
        "sandbox", description="off: run this target without the OS sandbox")

    def lints(self) -> list[tuple[str, str]]:
        """(setting, warning): the command shape checker's findings (a lint: the sandbox,
        not the shape, contains what runs) with the safe rewrite."""
        found = []
        for name in ("command_template", "batch_command_template"):
            text = getattr(self, name)
            if text is not None:
                template = CommandTemplate(text, "", name)
                found += [(name, m) for m in template.lints]
                if name == "command_template" and self.prompt_via == "stdin" \
                        and template.stdin_code:
                    found.append(("prompt_via", f"sends the prompt to {template.stdin_code}, "
                                  "so it runs as code (inside the sandbox); pass "
                                  "{PROMPT_FILE} or read $AGENTV_PROMPT instead"))
        return found

    @field_validator("command_template", "batch_command_template")
    @classmethod
    def _templates(cls, value: Any, info) -> Any:
        return _template(value, info.field_name, info.field_name == "command_template")

    @field_validator("files_format", "attachments_format")
    @classmethod
    def _formats(cls, value: Any, info) -> Any:
        return value if value is None else _file_format(value, info.field_name)
