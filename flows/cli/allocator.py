"""The ``agentv`` command's memory allocators, set for a long run of many cases, so that a
run's memory stays flat as its suite grows (docs/benchmarks.md):

- **glibc's mmap threshold, fixed.** glibc raises it to the size of each large block it
  frees (up to 32 MiB). Once a large suite's YAML text is freed (14 MB for 100,000 cases),
  every block below that size comes from the main heap, where arrays that grow record by
  record (the statistics' columns) leave holes the heap never gives back. Fixed at glibc's
  own default (128 KiB), large blocks keep their own mappings and go back when freed.
- **pyarrow's system pool.** pyarrow's default pool (mimalloc) keeps what each written
  Parquet row group freed for reuse; the system allocator gives it back. Set through
  pyarrow's own ``ARROW_DEFAULT_MEMORY_POOL``, read when pyarrow first allocates; a value
  the user set is kept (the programs a run starts inherit it, as any environment variable).

Measured on the throughput benchmark (mock target, 50 workers): the fixed threshold took peak
RSS at 100,000 cases from 227–234 to 213–218 MB; the system pool then took it from 215 to 200
MB, and from 194 to 183 MB at 2,000 cases. Only the command sets them, for its own
process: the typed API runs in the user's process and is left alone; other C libraries
(musl, macOS) are left alone.
"""
from __future__ import annotations

import os

M_MMAP_THRESHOLD = -3  # glibc's malloc.h
MMAP_THRESHOLD = 128 * 1024  # glibc's default (DEFAULT_MMAP_THRESHOLD_MIN)
ARROW_POOL = "ARROW_DEFAULT_MEMORY_POOL"


def is_glibc() -> bool:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION") is not None
    except (ValueError, OSError, AttributeError):
        return False


def fix_mmap_threshold() -> bool:
    """Fix glibc's mmap threshold for this process; False where there is no glibc."""
    if not is_glibc():
        return False
    import ctypes
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def set_allocators() -> None:
    """Both, before anything is read or allocated by pyarrow."""
    fix_mmap_threshold()
    os.environ.setdefault(ARROW_POOL, "system")
