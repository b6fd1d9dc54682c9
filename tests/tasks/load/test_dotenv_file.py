"""A .env file is read like every config file: size first, then UTF-8 and no NUL byte."""
from __future__ import annotations

import pytest

from agentv.providers.errors import ConfigError
from agentv.tasks.load.dotenv_file import MAX_ENV_BYTES, read_env_file


@pytest.mark.parametrize("content, expect", [
    (b"A=1\nNAME=caf\xe9\n", ".env:2: not UTF-8 text"),
    ("A=1\n".encode("utf-16"), ".env:1: NUL byte"),
    (b"A=1\nB=x\x00y\n", ".env:2: NUL byte"),
])
def test_a_dotenv_that_is_not_utf8_text_names_its_line(tmp_path, content, expect):
    (tmp_path / ".env").write_bytes(content)
    with pytest.raises(ConfigError) as err:
        read_env_file(tmp_path / ".env")
    assert expect in err.value.render()


def test_a_huge_dotenv_is_refused_before_it_is_read(tmp_path):
    with open(tmp_path / ".env", "wb") as fh:
        fh.truncate(80 * 1024 * 1024)  # sparse: no disk used, and never read
    with pytest.raises(ConfigError, match="file is too large .* the limit is 1 MB"):
        read_env_file(tmp_path / ".env")
    assert MAX_ENV_BYTES == 1024 * 1024


def test_a_dotenv_reads_its_values(tmp_path):
    (tmp_path / ".env").write_text("\ufeffA=1\nexport B='two words'\nEMPTY\n", encoding="utf-8")
    assert read_env_file(tmp_path / ".env") == {"A": "1", "B": "two words"}
