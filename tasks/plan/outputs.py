"""Output paths and format, checked before the first case runs.

The results format comes from ``--output-format`` (alias ``--format``), else from the
extension of ``--out`` (``.yaml``/``.yml`` → yaml, ``.jsonl``/``.json`` → jsonl), else jsonl;
an explicit format that contradicts the extension is an error. ``--out`` and ``--junit``
must be writable files (not directories); dump folders must be directories we can create.
``tasks.plan.options`` applies these checks when a run's options are made.
"""
from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from agentv.providers.errors import ConfigError

FORMATS = ("jsonl", "yaml")


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise ConfigError(f"unknown output format '{fmt}' (expected one of: {', '.join(FORMATS)})",
                          None, "--output-format")
    return fmt


def default_results_path(fmt: str = "jsonl") -> Path:
    stamp = datetime.now().strftime("%Y-%m-%dT%H-%M-%S-%f")[:-3]
    return Path(".agentv") / "results" / f"eval_{stamp}.{fmt}"


EXTENSIONS = {".jsonl": "jsonl", ".json": "jsonl", ".ndjson": "jsonl", ".yaml": "yaml",
              ".yml": "yaml"}


def implied_format(out: str | None) -> str | None:
    return EXTENSIONS.get(Path(out).suffix.lower()) if out else None


def output_format(explicit: str | None, out: str | None, flag: str = "--out") -> str:
    """The results format: ``explicit``, else implied by the extension of ``out`` (the
    file ``flag`` names), else jsonl; an explicit one contradicting the extension is an
    error."""
    implied = implied_format(out)
    if explicit is None:
        return implied or "jsonl"
    fmt = check_format(explicit)
    if implied and implied != fmt:
        raise ConfigError(f"--output-format {fmt} contradicts the extension of {flag} {out} "
                          f"(which means {implied}); drop one of them", None, "--output-format")
    return fmt


def _nearest_existing(path: Path) -> Path:
    for d in (path, *path.parents):
        if d.exists():
            return d
    return Path(".")


FILE_FLAGS = {"--out": "results file", "--resume": "results file", "--junit": "JUnit file"}


def _not_empty(value: str | None, flag: str) -> bool:
    """False for no value; ConfigError for an empty one (``--out ''``)."""
    if value is None:
        return False
    if not str(value).strip():
        raise ConfigError(f"must be a path, got {value!r}", None, flag)
    return True


def _probe(base: Path) -> str | None:
    """Why no file can be made under ``base`` (one is made and removed: ``os.access`` says
    yes to root on /proc), or None."""
    import tempfile
    try:
        fd, name = tempfile.mkstemp(dir=base, prefix=".agentv-probe-")
    except OSError as err:
        return f"cannot create files in {base} ({err.strerror or err})"
    os.close(fd)
    os.unlink(name)
    return None


def check_file_target(value: str | None, flag: str) -> None:
    """A path a run will write a file to: not a directory, its folder creatable+writable."""
    if not _not_empty(value, flag):
        return
    assert value is not None
    path = Path(value)
    prefix = f"cannot open {FILE_FLAGS.get(flag, 'file')} for writing: "
    if path.is_dir():
        raise ConfigError(prefix + "it is a directory; give a file path", value, flag)
    if path.exists() and not os.access(path, os.W_OK):
        raise ConfigError(prefix + "permission denied", value, flag)
    base = _nearest_existing(path.parent if str(path.parent) else Path("."))
    if not base.is_dir():
        raise ConfigError(prefix + f"{base} is a file, not a directory", value, flag)
    if not os.access(base, os.W_OK | os.X_OK):
        raise ConfigError(prefix + f"cannot create files in {base} (permission denied)", value,
                          flag)
    if not path.exists():
        why = _probe(base)
        if why:
            raise ConfigError(prefix + why, value, flag)


def check_dir_target(value: str | None, flag: str) -> None:
    if not _not_empty(value, flag):
        return
    assert value is not None
    path = Path(value)
    if path.exists() and not path.is_dir():
        raise ConfigError("is a file; give a directory", value, flag)
    base = _nearest_existing(path)
    if not base.is_dir() or not os.access(base, os.W_OK | os.X_OK):
        raise ConfigError(f"cannot create or write directory (nearest existing: {base})",
                          value, flag)

