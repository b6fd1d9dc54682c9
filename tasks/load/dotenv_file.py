"""A ``.env`` file's variables, read as every other config file is: at most ``MAX_ENV_BYTES``
(checked before reading it), UTF-8, no NUL byte — else one ``ConfigError`` naming the line
(``error: .env:2: not UTF-8 text ...``), never a traceback or a minute spent parsing."""
from __future__ import annotations

import io
from pathlib import Path

from agentv.tasks.load.textfile import read_text

MAX_ENV_BYTES = 1024 * 1024  # a .env holds settings, not data


def read_env_file(path: str | Path) -> dict[str, str]:
    """The file's ``NAME=value`` pairs (a name without a value is left out)."""
    from dotenv import dotenv_values
    text = read_text(path, MAX_ENV_BYTES)
    values = dotenv_values(stream=io.StringIO(text))
    return {k: v for k, v in values.items() if v is not None}
