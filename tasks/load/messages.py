"""Message content: text and file blocks, guideline detection by glob patterns.

A message's ``content`` is a string, a list of ``{type: text|file, value}`` blocks, or a
structured mapping (kept as JSON text). File paths resolve relative to the eval file;
a leading ``/`` resolves from the repository root; either resolves (symlinks followed) inside
the suite's boundary (``tasks.load.boundary``) or is an error, before the file is read.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from agentv.providers.errors import ConfigError
from agentv.tasks.load.boundary import Boundary
from agentv.tasks.load.discover import find_upward, repo_root, upward_dirs
from agentv.tasks.load.yamlsrc import LineDict, LineList

ROLES = ("system", "user", "assistant", "tool")
DEFAULT_GUIDELINE_PATTERNS = ("**/*.instructions.md", "**/instructions/**", "**/*.prompt.md",
                              "**/prompts/**")


@dataclass(slots=True)
class Segment:
    kind: str  # "text" | "file"
    text: str
    path: str | None = None  # absolute path of a file block
    display: str | None = None  # the path as written (file blocks)
    is_guideline: bool = False

    @property
    def basename(self) -> str:
        return Path(self.path or "").name


@dataclass(slots=True)
class Message:
    role: str
    segments: list[Segment] = field(default_factory=list)
    structured: Any = None  # the original mapping when content was structured

    def to_dict(self) -> dict[str, Any]:
        if self.structured is not None:
            return {"role": self.role, "content": self.structured}
        if len(self.segments) == 1 and self.segments[0].kind == "text":
            return {"role": self.role, "content": self.segments[0].text}
        return {"role": self.role, "content": [
            {"type": s.kind, "value": s.text if s.kind == "text" else s.display}
            for s in self.segments]}


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Glob with ``**`` (any depth), ``*`` and ``?`` (within a segment) → regex."""
    out, i = [], 0
    p = pattern.replace("\\", "/")
    while i < len(p):
        if p.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif p.startswith("**", i):
            out.append(".*")
            i += 2
        elif p[i] == "*":
            out.append("[^/]*")
            i += 1
        elif p[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(p[i]))
            i += 1
    return re.compile("^" + "".join(out) + "$")


@lru_cache(maxsize=128)
def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(glob_to_regex(p) for p in patterns)


def is_guideline(path: Path, patterns: tuple[str, ...]) -> bool:
    """Patterns match the path relative to the file's repository root (else the current
    directory) — never the absolute path, so a checkout under ``/home/me/prompts/`` does
    not make every attached file a guideline."""
    resolved = path.resolve()
    root = repo_root(str(resolved.parent))
    try:
        rel = resolved.relative_to(root).as_posix()
    except ValueError:
        rel = resolved.name
    return any(rx.match(rel) for rx in _compiled(patterns))


@lru_cache(maxsize=128)
def guideline_patterns(eval_dir: str) -> tuple[str, ...]:
    """From ``.agentv.yaml`` beside the eval file, else the first ``.agentv/config.yaml``
    upward to the repo root, else the defaults."""
    d = Path(eval_dir)
    candidates = [d / ".agentv.yaml"] if (d / ".agentv.yaml").is_file() else []
    found = find_upward(d, (".agentv/config.yaml", ".agentv/config.yml"))
    candidates += [found] if found else []
    from agentv.tasks.load.config_file import load_config
    for path in candidates:
        config = load_config(path)
        if config.guideline_patterns is not None:
            return tuple(config.guideline_patterns)
    return DEFAULT_GUIDELINE_PATTERNS


def resolve_file(value: str, base_dir: Path) -> Path:
    """Relative to the eval file; ``/`` from the repo root. Like AgentV, a relative path
    not found there is looked up from each parent directory up to the repo root, then the
    current directory; the first existing match wins (else the eval-relative path)."""
    if value.startswith("/"):
        rooted = repo_root(str(base_dir)) / value.lstrip("/")
        return rooted if rooted.exists() or not Path(value).exists() else Path(value)
    primary = _resolved(base_dir / value)
    if primary.exists():
        return primary
    for root in [*upward_dirs(base_dir)[1:], Path.cwd()]:
        candidate = _resolved(root / value)
        if candidate.is_file():
            return candidate
    return primary


def _resolved(path: Path) -> Path:
    """``path`` resolved; as it is when it cannot be (a symlink loop: the boundary says so)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def parse_content(content: Any, base_dir: Path, file: str, line: int,
                  patterns: tuple[str, ...], boundary: Boundary) -> tuple[list[Segment], Any]:
    """(segments, structured) for one message's content."""
    if content is None:
        return [Segment("text", "")], None
    if isinstance(content, str):
        return [Segment("text", content)], None
    if isinstance(content, dict):
        return [Segment("text", json.dumps(content, ensure_ascii=False, indent=2))], content
    if not isinstance(content, list):
        raise ConfigError("must be a string, a list of blocks or a mapping",
                          f"{file}:{line}", "content")
    segments = []
    for i, block in enumerate(content):
        at = f"{file}:{content.line_of(i) if isinstance(content, LineList) else line}"
        if isinstance(block, str):
            segments.append(Segment("text", block))
            continue
        if not isinstance(block, dict) or block.get("type") not in ("text", "file"):
            raise ConfigError("a content block needs type: text or file", at, "type")
        value = block.get("value")
        if not isinstance(value, str):
            raise ConfigError("a content block needs a string 'value'", at, "value")
        if block["type"] == "text":
            segments.append(Segment("text", value))
            continue
        path = boundary.check(resolve_file(value, base_dir), at, "value", value)
        if not path.is_file():
            raise ConfigError(f"referenced file not found: {value} (resolved to {path})", at,
                              "value")
        text = path.read_text(encoding="utf-8", errors="replace")
        segments.append(Segment("file", text, str(path), value, is_guideline(path, patterns)))
    return segments, None


def parse_messages(raw: Any, base_dir: Path, file: str, line: int, field_name: str,
                   patterns: tuple[str, ...], boundary: Boundary) -> list[Message]:
    """A list of {role, content}; a plain string is one user (or assistant) message."""
    if raw is None:
        return []
    default_role = "assistant" if field_name.startswith("expected") else "user"
    if isinstance(raw, (str, dict)) and not (isinstance(raw, dict) and "role" in raw):
        segments, structured = parse_content(raw, base_dir, file, line, patterns, boundary)
        return [Message(default_role, segments, structured)]
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list):
        raise ConfigError("must be a string or a list of messages", f"{file}:{line}", field_name)
    messages = []
    for i, item in enumerate(raw):
        at_line = raw.line_of(i) if isinstance(raw, LineList) else line
        if not isinstance(item, dict):
            raise ConfigError("a message must be a mapping with role and content",
                              f"{file}:{at_line}", field_name)
        role = item.get("role")
        if role not in ROLES:
            at = item.line_of("role") if isinstance(item, LineDict) else at_line
            raise ConfigError(f"unknown role {role!r} (expected one of {', '.join(ROLES)})",
                              f"{file}:{at}", "role")
        c_line = item.line_of("content") if isinstance(item, LineDict) else at_line
        segments, structured = parse_content(item.get("content"), base_dir, file, c_line,
                                             patterns, boundary)
        messages.append(Message(role, segments, structured))
    return messages
