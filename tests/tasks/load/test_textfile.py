"""A config file's text: a file over 64 MB, a NUL byte or a control character YAML forbids
is one error naming a line (line 1 / the line of the first NUL or character)."""
from __future__ import annotations

import pytest

from agentv.providers.errors import ConfigError
from agentv.tasks.load.textfile import MAX_BYTES, read_text
from agentv.tasks.load.yamlsrc import load_yaml_file


def test_a_file_over_the_limit_names_line_1(tmp_path):
    big = tmp_path / "big.yaml"
    with open(big, "wb") as fh:  # sparse: nothing is written but its size
        fh.truncate(MAX_BYTES + 1024 * 1024)
    with pytest.raises(ConfigError) as err:
        read_text(big)
    assert err.value.where == f"{big}:1" and "file is too large (68 MB" in err.value.message


def test_a_nul_byte_names_its_line_and_column(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_bytes(b"a: 1\nb: 2\nc: x\x00y\n")
    with pytest.raises(ConfigError) as err:
        load_yaml_file(path)
    assert err.value.where == f"{path}:3"
    assert err.value.message.startswith("NUL byte (\\x00) at column 5")


def test_a_control_character_names_its_line(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_bytes(b"a: 1\n\nb: \x1b[2K\n")
    with pytest.raises(ConfigError) as err:
        load_yaml_file(path)
    assert err.value.where == f"{path}:3" and "control character 0x1b" in err.value.message
