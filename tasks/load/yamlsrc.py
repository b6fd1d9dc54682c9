"""YAML loading that remembers line numbers, so every error can name file:line.

Mappings load as ``LineDict`` (a dict with ``.line`` and ``.key_lines``) and sequences as
``LineList`` (a list with ``.line`` and ``.item_lines``); both behave as plain dict/list.

Plain scalars follow YAML 1.2's core schema, like AgentV: ``yes``/``no``/``on``/``off``
are strings, ``true``/``false`` booleans, dates stay text. Bad input is one ``ConfigError``
naming the line: malformed YAML, duplicate keys, ``.inf``/``.nan``, recursive aliases,
alias expansion beyond ``MAX_NODES`` values, nesting deeper than ``MAX_DEPTH``, files over
``MAX_BYTES``, bytes that are not UTF-8 (a UTF-8 BOM is accepted).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

import yaml

from agentv.providers.errors import ConfigError
from agentv.tasks.load.textfile import MAX_BYTES, read_text  # noqa: F401 - this module's API

MAX_DEPTH = 100
MAX_NODES = 2_000_000  # values after alias expansion ("billion laughs" stops here)
EachCase = Callable[[Any, int], Any]
SHARED_TEXT = 40  # texts up to this length are one string however often they recur


class LineDict(dict):
    """A mapping and the line of each key; ``source``: the file it came from, when not the
    one being loaded; ``merged_keys``: the keys a ``<<`` merge gave it."""

    __slots__ = ("line", "key_lines", "source", "merged_keys")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.line = 0
        self.key_lines: dict[str, int] = {}
        self.source: str | None = None
        self.merged_keys: set[str] | None = None

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, self.line)


class LineList(list):
    __slots__ = ("line", "item_lines")

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.line = 0
        self.item_lines: list[int] = []

    def line_of(self, index: int) -> int:
        lines = self.item_lines
        return lines[index] if index < len(lines) else self.line


_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when available
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_TAGGED_AS_TEXT = {f"tag:yaml.org,2002:{t}" for t in ("timestamp", "merge", "str")}
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False,
         "FALSE": False}
_INT = re.compile(r"^[-+]?[0-9]+$")
_OCT = re.compile(r"^0o[0-7]+$")
_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_NONFINITE = re.compile(r"^(?:[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")


def core_scalar(text: str, where: str) -> Any:
    """A plain scalar under YAML 1.2's core schema."""
    if _NULL.match(text):
        return None
    if text in _BOOL:
        return _BOOL[text]
    if _INT.match(text):
        return int(text)
    if _OCT.match(text):
        return int(text[2:], 8)
    if _HEX.match(text):
        return int(text[2:], 16)
    if _FLOAT.match(text):
        value = float(text)
        if value in (float("inf"), float("-inf")):
            raise ConfigError(f"number {text} is out of range", where)
        return value
    if _NONFINITE.match(text):
        raise ConfigError(f"{text} is not allowed (numbers must be finite)", where)
    return text


def _scalar(event: yaml.ScalarEvent, name: str) -> Any:
    text, plain = event.value, event.tag in (None, "!")
    if plain and (event.style or text and text[0] not in "~nNtTfF0123456789+-."):
        return text  # quoted, or text: what else the core schema reads starts otherwise
    where = f"{name}:{event.start_mark.line + 1}"
    if plain or event.tag in _TAGGED_AS_TEXT:
        return core_scalar(text, where) if plain else text
    construct = _CONSTRUCTOR.yaml_constructors.get(event.tag)
    if construct is None:
        raise ConfigError(f"unsupported YAML tag {event.tag}", where)
    node = yaml.ScalarNode(event.tag, event.value, event.start_mark, event.end_mark, event.style)
    try:
        value = construct(_CONSTRUCTOR, node)
    except (ValueError, yaml.YAMLError) as err:
        raise ConfigError(f"cannot read {event.value!r} as {event.tag}: {err}", where) from None
    if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
        raise ConfigError(f"{event.value} is not allowed (numbers must be finite)", where)
    return value


class _Builder:
    """Builds LineDict/LineList straight from parser events: no node graph is kept, so a
    20,000-case file costs the memory of its values, not of its YAML nodes."""

    def __init__(self, name: str, each_case: EachCase | None = None):
        self.name = name
        self.each_case = each_case  # given each item of the top-level ``evalcases`` list
        self.cases: LineList | None = None
        self.stack: list[list[Any]] = []  # [container, pending key, key line, size]
        self.anchors: dict[str, Any] = {}
        self.sizes: dict[int, int] = {}  # id(anchored container) -> values inside, expanded
        self.anchored: set[int] = set()
        self.root: Any = None
        self.nodes = 0
        self.texts: dict[str, str] = {}  # one string for each text that recurs (keys, types)

    def at(self, line: int) -> str:
        return f"{self.name}:{line}"

    def add(self, value: Any, line: int, size: int = 1) -> None:
        self.nodes += size
        if self.nodes > MAX_NODES:
            raise ConfigError(f"aliases expand to more than {MAX_NODES:,} values (a YAML "
                              "'billion laughs' file?)", self.at(line))
        if not self.stack:
            self.root = value
            return
        frame = self.stack[-1]
        frame[3] += size
        container = frame[0]
        if isinstance(container, LineList):
            if container is self.cases and self.each_case is not None:
                value = self.each_case(value, line)
            container.append(value)
            container.item_lines.append(line)
        elif frame[1] is _NO_KEY:
            if isinstance(value, (dict, list)):
                raise ConfigError("mapping keys must be scalars", self.at(line))
            frame[1] = value if isinstance(value, str) else _key_text(value)
            frame[2] = line
        else:
            self.set_item(container, frame[1], value, frame[2])
            frame[1] = _NO_KEY

    def set_item(self, container: LineDict, key: str, value: Any, line: int) -> None:
        merged = container.merged_keys
        if key == "<<":  # merge keys: explicit keys win
            if merged is None:
                merged = container.merged_keys = set()
            for source in value if isinstance(value, list) else [value]:
                if not isinstance(source, dict):
                    raise ConfigError("'<<' merges mappings only", self.at(line), "<<")
                for k, v in source.items():
                    if k not in container:
                        container[k] = v
                        container.key_lines[k] = line
                        merged.add(k)
            return
        if key in container and not (merged and key in merged):
            raise ConfigError(f"duplicate key (first at line {container.key_lines[key]})",
                              self.at(line), key)
        if merged:
            merged.discard(key)
        container[key] = value
        container.key_lines[key] = line

    def open(self, container: LineDict | LineList, event) -> None:
        container.line = event.start_mark.line + 1
        if len(self.stack) >= MAX_DEPTH:
            raise ConfigError(f"nested deeper than {MAX_DEPTH} levels", self.at(container.line))
        if event.anchor:
            self.anchors[event.anchor] = container
            self.anchored.add(id(container))
        if len(self.stack) == 1 and self.stack[0][1] == "evalcases" and \
                isinstance(container, LineList) and isinstance(self.stack[0][0], LineDict):
            self.cases = container
        self.stack.append([container, _NO_KEY, 0, 0])

    def close(self) -> None:
        container, _, _, size = self.stack.pop()
        if id(container) in self.anchored:
            self.sizes[id(container)] = size + 1
        self.nodes -= size  # counted again, as a whole, by add()
        self.add(container, container.line, size + 1)

    def check_tag(self, event, standard: str) -> None:
        if event.tag not in (None, "!", standard):
            raise ConfigError(f"unsupported YAML tag {event.tag}",
                              self.at(event.start_mark.line + 1))

    def alias(self, event) -> None:
        line = event.start_mark.line + 1
        if event.anchor not in self.anchors:
            raise ConfigError(f"unknown alias *{event.anchor}", self.at(line))
        value = self.anchors[event.anchor]
        if any(frame[0] is value for frame in self.stack):
            raise ConfigError(f"alias *{event.anchor} refers to a mapping or list that "
                              "contains it (recursive alias)", self.at(line))
        self.add(value, line, self.sizes.get(id(value), 1))

    def feed(self, event) -> None:
        if isinstance(event, yaml.ScalarEvent):
            try:
                value = _scalar(event, self.name)
            except ConfigError as err:
                frame = self.stack[-1] if self.stack else None
                if frame and isinstance(frame[0], LineDict) and frame[1] is not _NO_KEY:
                    err.field = err.field or frame[1]
                raise
            if isinstance(value, str) and len(value) <= SHARED_TEXT:
                value = self.texts.setdefault(value, value)
            if event.anchor:
                self.anchors[event.anchor] = value
            self.add(value, event.start_mark.line + 1)
        elif isinstance(event, yaml.MappingStartEvent):
            self.check_tag(event, "tag:yaml.org,2002:map")
            self.open(LineDict(), event)
        elif isinstance(event, yaml.SequenceStartEvent):
            self.check_tag(event, "tag:yaml.org,2002:seq")
            self.open(LineList(), event)
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            self.close()
        elif isinstance(event, yaml.AliasEvent):
            self.alias(event)
        elif isinstance(event, yaml.DocumentStartEvent) and self.root is not None:
            raise ConfigError("expected a single YAML document, found several",
                              self.at(event.start_mark.line + 1))


def _key_text(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


_NO_KEY = object()


def parse_yaml(text: str, name: str, each_case: EachCase | None = None) -> Any:
    """The document as LineDict/LineList. ``each_case(item, line)``, if given, is called with
    each item of a top-level ``evalcases`` list as soon as it is complete, and what it
    returns is kept in its place: the items of a large file never all exist at once."""
    builder = _Builder(name, each_case)
    try:
        for event in yaml.parse(text.removeprefix("\ufeff"), Loader=_Loader):
            builder.feed(event)
    except ConfigError:
        raise
    except yaml.MarkedYAMLError as err:
        if "nesting depth" in (err.problem or ""):  # libyaml's own limit, met first
            mark = err.problem_mark or err.context_mark
            raise ConfigError(f"nested deeper than {MAX_DEPTH} levels",
                              f"{name}:{mark.line + 1}" if mark else name) from None
        unfinished = err.context_mark is not None and (err.problem or "").startswith(
            ("did not find expected", "found unexpected end of stream"))
        mark = err.context_mark if unfinished else (err.problem_mark or err.context_mark)
        line = f":{mark.line + 1}" if mark else ""
        problem = err.problem or err.context or "invalid YAML"
        if unfinished and err.context:
            problem += f" ({err.context})"
        raise ConfigError(f"malformed YAML: {problem}", f"{name}{line}") from None
    except yaml.reader.ReaderError as err:  # a control character YAML does not allow
        code = err.character if isinstance(err.character, int) else ord(err.character)
        raise ConfigError(f"malformed YAML: control character 0x{code:02x} is not allowed "
                          "(write it as an escape in a double-quoted string)", f"{name}:"
                          f"{text.removeprefix(chr(0xfeff))[:err.position].count(chr(10)) + 1}"
                          ) from None
    except yaml.YAMLError as err:
        raise ConfigError(f"malformed YAML: {err}", name) from None
    return builder.root


def load_yaml_file(path: str | Path, each_case: EachCase | None = None) -> Any:
    return parse_yaml(read_text(path), str(path), each_case)


def where(path: str | Path, obj: Any = None, key: str | int | None = None) -> str:
    """``file:line`` for a key of a LineDict / index of a LineList (or the object itself)."""
    line = 0
    if isinstance(obj, LineDict):
        line = obj.line_of(key) if isinstance(key, str) else obj.line
    elif isinstance(obj, LineList):
        line = obj.line_of(key) if isinstance(key, int) else obj.line
    return f"{path}:{line}" if line else str(path)
