"""YAML loading that remembers line numbers, so every error can name file:line.

Mappings load as ``LineDict`` (a dict with ``.line`` and ``.key_lines``) and sequences as
``LineList`` (a list with ``.line`` and ``.item_lines``); both behave as plain dict/list.
Malformed YAML raises ``ConfigError`` with the parser's line.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from providers.errors import ConfigError


class LineDict(dict):
    line: int = 0
    key_lines: dict[str, int]

    def line_of(self, key: str) -> int:
        return getattr(self, "key_lines", {}).get(key, self.line)


class LineList(list):
    line: int = 0
    item_lines: list[int]

    def line_of(self, index: int) -> int:
        lines = getattr(self, "item_lines", [])
        return lines[index] if index < len(lines) else self.line


_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when available
_RESOLVER = yaml.resolver.Resolver()
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_MERGE = "tag:yaml.org,2002:merge"


def _scalar(event: yaml.ScalarEvent, name: str) -> Any:
    tag = event.tag if event.tag not in (None, "!") else \
        _RESOLVER.resolve(yaml.ScalarNode, event.value, event.implicit)
    if tag in (_TIMESTAMP, _MERGE):
        return event.value  # dates stay as written (JSON-safe); "<<" is handled by _Builder
    construct = _CONSTRUCTOR.yaml_constructors.get(tag)
    if construct is None:
        raise ConfigError(f"unsupported YAML tag {tag}", f"{name}:{event.start_mark.line + 1}")
    node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
    return construct(_CONSTRUCTOR, node)


class _Builder:
    """Builds LineDict/LineList straight from parser events: no node graph is kept, so a
    20,000-case file costs the memory of its values, not of its YAML nodes."""

    def __init__(self, name: str):
        self.name = name
        self.stack: list[list[Any]] = []  # [container, pending key, key line]
        self.anchors: dict[str, Any] = {}
        self.root: Any = None

    def add(self, value: Any, line: int) -> None:
        if not self.stack:
            self.root = value
            return
        frame = self.stack[-1]
        container = frame[0]
        if isinstance(container, LineList):
            container.append(value)
            container.item_lines.append(line)
        elif frame[1] is _NO_KEY:
            if isinstance(value, (dict, list)):
                raise ConfigError("mapping keys must be scalars", f"{self.name}:{line}")
            frame[1], frame[2] = value if isinstance(value, str) else str(value), line
        else:
            self.set_item(container, frame[1], value, frame[2])
            frame[1] = _NO_KEY

    @staticmethod
    def set_item(container: LineDict, key: str, value: Any, line: int) -> None:
        if key == "<<":  # merge keys: explicit keys win
            for merged in value if isinstance(value, list) else [value]:
                for k, v in (merged or {}).items():
                    if k not in container:
                        container[k] = v
                        container.key_lines[k] = line
            return
        container[key] = value
        container.key_lines[key] = line

    def open(self, container: LineDict | LineList, event) -> None:
        container.line = event.start_mark.line + 1
        if isinstance(container, LineDict):
            container.key_lines = {}
        else:
            container.item_lines = []
        if event.anchor:
            self.anchors[event.anchor] = container
        self.stack.append([container, _NO_KEY, 0])

    def close(self) -> None:
        container = self.stack.pop()[0]
        self.add(container, container.line)

    def feed(self, event) -> None:
        if isinstance(event, yaml.ScalarEvent):
            value = _scalar(event, self.name)
            if event.anchor:
                self.anchors[event.anchor] = value
            self.add(value, event.start_mark.line + 1)
        elif isinstance(event, yaml.MappingStartEvent):
            self.open(LineDict(), event)
        elif isinstance(event, yaml.SequenceStartEvent):
            self.open(LineList(), event)
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            self.close()
        elif isinstance(event, yaml.AliasEvent):
            if event.anchor not in self.anchors:
                raise ConfigError(f"unknown alias *{event.anchor}",
                                  f"{self.name}:{event.start_mark.line + 1}")
            self.add(self.anchors[event.anchor], event.start_mark.line + 1)
        elif isinstance(event, yaml.DocumentStartEvent) and self.root is not None:
            raise ConfigError("expected a single YAML document, found several",
                              f"{self.name}:{event.start_mark.line + 1}")


_NO_KEY = object()


def parse_yaml(text: str, name: str) -> Any:
    builder = _Builder(name)
    try:
        for event in yaml.parse(text, Loader=_Loader):
            builder.feed(event)
    except ConfigError:
        raise
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = f":{mark.line + 1}" if mark else ""
        problem = err.problem or err.context or "invalid YAML"
        raise ConfigError(f"malformed YAML: {problem}", f"{name}{line}") from None
    except yaml.YAMLError as err:
        raise ConfigError(f"malformed YAML: {err}", name) from None
    return builder.root


def load_yaml_file(path: str | Path) -> Any:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("file not found", str(path)) from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"cannot read file: {err}", str(path)) from None
    return parse_yaml(text, str(path))


def where(path: str | Path, obj: Any = None, key: str | int | None = None) -> str:
    """``file:line`` for a key of a LineDict / index of a LineList (or the object itself)."""
    line = 0
    if isinstance(obj, LineDict):
        line = obj.line_of(key) if isinstance(key, str) else obj.line
    elif isinstance(obj, LineList):
        line = obj.line_of(key) if isinstance(key, int) else obj.line
    return f"{path}:{line}" if line else str(path)
