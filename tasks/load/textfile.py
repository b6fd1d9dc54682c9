"""A config file's bytes as text, or one ``ConfigError`` naming its line: at most
``MAX_BYTES``, no NUL byte, UTF-8 (a BOM is fine)."""
from __future__ import annotations

from pathlib import Path

from agentv.providers.errors import ConfigError

MAX_BYTES = 64 * 1024 * 1024


def read_text(path: str | Path, max_bytes: int = MAX_BYTES) -> str:
    """A config file's text: UTF-8 (BOM allowed), at most ``max_bytes`` (checked before it
    is read); else ConfigError."""
    p = Path(path)
    try:
        if p.is_dir():
            raise ConfigError("is a directory, not a file", str(path))
        size = p.stat().st_size
        if size > max_bytes:
            raise ConfigError(f"file is too large ({size / 1e6:.0f} MB; the limit is "
                              f"{max_bytes / (1024 * 1024):g} MB)", f"{path}:1")
        data = p.read_bytes()
    except FileNotFoundError:
        raise ConfigError("file not found", str(path)) from None
    except OSError as err:
        raise ConfigError(f"cannot read file: {err.strerror or err}", str(path)) from None
    nul = data.find(b"\0")
    if nul >= 0:  # a binary file, or text cut by a NUL: named at its line
        line = data[:nul].count(b"\n") + 1
        column = nul - data.rfind(b"\n", 0, nul)
        raise ConfigError(f"NUL byte (\\x00) at column {column}: not a text file (remove it, "
                          "or save the file as UTF-8 text)", f"{path}:{line}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        raise ConfigError(f"not UTF-8 text (byte 0x{data[err.start]:02x}; save the file as "
                          "UTF-8)", f"{path}:{line}") from None
