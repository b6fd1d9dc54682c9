"""ErrorCollector: every block's ConfigError kept (nested blocks too), others go through."""
from __future__ import annotations

import pytest

from agentv.providers.errors import ConfigError, ConfigErrors, ErrorCollector


def test_each_blocks_config_error_is_kept_and_all_are_raised_at_once():
    errors = ErrorCollector()
    with errors.check():
        raise ConfigError("first", "f.yaml:1")
    with errors.check():
        with errors.check():
            raise ConfigError("inner", "f.yaml:2")
        raise ConfigError("outer", "f.yaml:3")
    with errors.check():
        pass
    with pytest.raises(ConfigErrors) as caught:
        errors.raise_any()
    assert caught.value.lines() == ["f.yaml:1: first", "f.yaml:2: inner", "f.yaml:3: outer"]


def test_other_exceptions_go_through_and_one_error_is_raised_as_it_is():
    errors = ErrorCollector()
    with pytest.raises(ValueError):
        with errors.check():
            raise ValueError("not a configuration error")
    errors.raise_any()  # nothing kept
    with errors.check():
        raise ConfigError("only", "f.yaml:9")
    errors.errors.extend([])  # callers add to the list itself
    with pytest.raises(ConfigError, match="only"):
        errors.raise_any()
