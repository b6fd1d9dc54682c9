"""YAML loading that remembers line numbers, so every error can name file:line.

Mappings load as ``LineDict`` (a dict with ``.line`` and ``.key_lines``) and sequences as
``LineList`` (a list with ``.line`` and ``.item_lines``); both behave as plain dict/list.
Malformed YAML raises ``ConfigError`` with the parser's line.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from providers.base import ConfigError


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


_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when available


class _Loader(_Base):
    pass


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> LineDict:
    loader.flatten_mapping(node)
    result = LineDict()
    result.line = node.start_mark.line + 1
    result.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, (str, int, float, bool)) and key is not None:
            name = getattr(loader, "agentv_name", node.start_mark.name)
            raise ConfigError("mapping keys must be scalars",
                              f"{name}:{key_node.start_mark.line + 1}")
        key = str(key) if not isinstance(key, str) else key
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = key_node.start_mark.line + 1
    return result


def _construct_sequence(loader: _Loader, node: yaml.SequenceNode) -> LineList:
    result = LineList(loader.construct_object(child, deep=True) for child in node.value)
    result.line = node.start_mark.line + 1
    result.item_lines = [child.start_mark.line + 1 for child in node.value]
    return result


def _construct_timestamp_as_str(loader: _Loader, node: yaml.ScalarNode) -> str:
    return loader.construct_scalar(node)  # keep dates as written (JSON-safe)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp_as_str)


def parse_yaml(text: str, name: str) -> Any:
    try:
        return yaml.load(text, Loader=_make_loader(name))  # noqa: S506 - SafeLoader subclass
    except ConfigError:
        raise
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = f":{mark.line + 1}" if mark else ""
        problem = err.problem or err.context or "invalid YAML"
        raise ConfigError(f"malformed YAML: {problem}", f"{name}{line}") from None
    except yaml.YAMLError as err:
        raise ConfigError(f"malformed YAML: {err}", name) from None


def _make_loader(name: str):
    def factory(stream: str) -> _Loader:
        loader = _Loader(stream)
        loader.agentv_name = name
        return loader
    return factory


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
