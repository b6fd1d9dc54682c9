"""The agentv command's allocators: glibc's mmap threshold fixed (a large block freed, such
as a big suite's YAML text, no longer sends later blocks below its size to the main heap)
and pyarrow's system pool (unless the user chose one)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agentv.flows.cli.allocator import ARROW_POOL, is_glibc

PROBE = textwrap.dedent("""
    import ctypes, sys
    from agentv.flows.cli.allocator import fix_mmap_threshold

    class MallInfo2(ctypes.Structure):
        _fields_ = [(f, ctypes.c_size_t) for f in
                    "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks "
                    "keepcost".split()]

    libc = ctypes.CDLL(None)
    libc.mallinfo2.restype = MallInfo2
    if sys.argv[1] == "fixed":
        assert fix_mmap_threshold()
    big = bytearray(16 << 20)  # a 100,000-case suite's text, read and let go
    del big
    before = libc.mallinfo2().hblkhd  # bytes in blocks of their own mapping
    blocks = [bytearray(1 << 20) for _ in range(4)]
    print((libc.mallinfo2().hblkhd - before) >> 20)
""")

ROOT = Path(__file__).resolve().parents[3]
glibc_only = pytest.mark.skipif(not is_glibc(), reason="glibc's malloc only")


def mapped_mib_after_a_large_free(mode: str) -> int:
    out = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    return int(out.stdout)


@glibc_only
def test_fixed_threshold_keeps_large_blocks_in_their_own_mappings() -> None:
    assert mapped_mib_after_a_large_free("fixed") == 4


@glibc_only
def test_glibc_default_would_put_them_on_the_heap() -> None:
    """The behaviour the fix is for: glibc's dynamic threshold, left as it is."""
    assert mapped_mib_after_a_large_free("default") == 0


def pyarrow_pool(env: dict[str, str]) -> str:
    probe = ("from flows.cli.allocator import set_allocators; set_allocators(); "
             "import pyarrow as pa; print(pa.default_memory_pool().backend_name)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, cwd=ROOT, env=env)
    return out.stdout.strip()


def test_pyarrow_allocates_from_the_system_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ARROW_POOL, raising=False)
    assert pyarrow_pool(dict(os.environ)) == "system"


def test_a_pool_the_user_chose_is_kept() -> None:
    assert pyarrow_pool({**os.environ, ARROW_POOL: "jemalloc"}) == "jemalloc"


def test_the_command_sets_them_before_anything_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    import agentv.flows.cli.allocator as allocator
    import agentv.flows.cli.main as cli
    calls: list[str] = []
    monkeypatch.setattr(allocator, "set_allocators", lambda: calls.append("set"))
    with pytest.raises(SystemExit):
        cli.main(["--version"])
    assert calls == ["set"]
