"""The throwaway overlay of a target's folder: the copy (fast), and a real sandboxed program
writing, changing and deleting beside the suite (slow) — checked from outside the sandbox."""
from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import stat
import time
from pathlib import Path

import pytest

from agentv.providers.process import overlay
from agentv.providers.process.environment import child_env
from agentv.providers.process.sandbox import Profile, options
from agentv.providers.process.supervision import run_process, run_process_sync


def fingerprint(folder: Path) -> list[tuple]:
    """Every entry's path, kind, mode, mtime and content (or link target)."""
    out = []
    for root, dirs, files in os.walk(folder):
        for name in sorted(dirs + files):
            path = Path(root, name)
            st = path.lstat()
            body = (os.readlink(path) if path.is_symlink() else
                    hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "")
            out.append((str(path), stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode),
                        st.st_mtime_ns, body))
    st = folder.stat()
    return sorted(out) + [(str(folder), stat.S_IMODE(st.st_mode), st.st_mtime_ns)]


def suite(tmp_path: Path) -> Path:
    folder = tmp_path / "suite"
    (folder / "data").mkdir(parents=True)
    (folder / "input.csv").write_text("id,amount\n1,5\n")
    (folder / "data" / "old.txt").write_text("old")
    (folder / "link").symlink_to("input.csv")
    for path in (folder / "data", folder):  # read-only on disk, as a shared checkout
        for child in path.iterdir():
            if not child.is_symlink():
                child.chmod(0o555 if child.is_dir() else 0o444)
        path.chmod(0o555)
    return folder


def test_copy_keeps_links_modes_and_adds_the_owners_write_bit(tmp_path):
    folder = suite(tmp_path)
    overlay.copy_tree(str(folder), str(tmp_path / "copy"))
    copy = tmp_path / "copy"
    assert os.readlink(copy / "link") == "input.csv"
    assert (copy / "data" / "old.txt").read_text() == "old"
    assert stat.S_IMODE((copy / "input.csv").stat().st_mode) == 0o644
    assert stat.S_IMODE(copy.stat().st_mode) == 0o755
    assert (copy / "input.csv").stat().st_mtime_ns == (folder / "input.csv").stat().st_mtime_ns


def test_a_template_link_leaving_the_template_is_warned_once(tmp_path, caplog):
    template = tmp_path / "tpl"
    template.mkdir()
    (tmp_path / "secret").write_text("s")
    (template / "inner").symlink_to("x")
    (template / "out").symlink_to(tmp_path / "secret")
    with caplog.at_level(logging.WARNING, "agentv.sandbox"):
        overlay.copy_tree(str(template), str(tmp_path / "ws1"), top=str(template))
        overlay.copy_tree(str(template), str(tmp_path / "ws2"), top=str(template))
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1 and f"out -> {tmp_path / 'secret'}" in warnings[0]
    assert overlay.LEFT.pop(str(template / "out")) == str(tmp_path / "secret")
    assert os.readlink(tmp_path / "ws2" / "out") == str(tmp_path / "secret")


def test_profile_copies_are_bound_at_the_original_path(tmp_path):
    folder = suite(tmp_path)
    profile, scratch = overlay.prepare(Profile("target", overlay=(str(folder),)))
    try:
        assert profile is not None and scratch is not None
        (copy, original), = profile.copies
        assert original == str(folder) and copy.startswith(scratch)
        opts = options(["true"], str(folder), {"PATH": "/usr/bin"}, profile)
        at = opts.index(copy)
        assert opts[at - 1:at + 2] == ["--bind", copy, str(folder)]
        assert opts.index(str(folder)) < at  # after the read-only view of the suite
    finally:
        overlay.discard(scratch)
    assert not os.path.exists(scratch)


def test_a_writable_workspace_or_a_folder_over_the_cap_gets_no_copy(tmp_path, monkeypatch,
                                                                   caplog):
    folder = suite(tmp_path)
    workspace = Profile("target", writable=(str(folder),), overlay=(str(folder),))
    assert overlay.prepare(workspace) == (workspace, None)
    monkeypatch.setenv("AGENTV_OVERLAY_MAX_FILES", "2")
    capped = Profile("target", overlay=(str(folder),))
    with caplog.at_level(logging.WARNING, "agentv.sandbox"):
        assert overlay.prepare(capped) == (capped, None)
        assert overlay.prepare(capped) == (capped, None)
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1 and "AGENTV_OVERLAY_MAX_FILES" in warnings[0]
    assert "stays read-only" in warnings[0]


WRITER = """\
import os, pathlib, shutil
here = pathlib.Path('.')
(here / 'built.csv').write_text(open('input.csv').read() + '2,7\\n')
open('input.csv', 'a').write('3,9\\n')
(here / 'tmpdir').mkdir(); (here / 'tmpdir' / 'x').write_text('x')
shutil.rmtree('tmpdir'); os.remove('data/old.txt'); (here / 'data' / 'new.txt').write_text('n')
os.remove('link')
print(os.getcwd(), (here / 'built.csv').read_text().count('\\n'),
      open('input.csv').read().count('\\n'), sorted(os.listdir('data')))
"""


@pytest.mark.slow
def test_a_program_writes_beside_the_suite_and_the_folder_is_unchanged(tmp_path):
    folder = suite(tmp_path)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    before = fingerprint(folder)
    profile = Profile("target", writable=(str(scratch),), overlay=(str(folder),))
    script = ["python3", "-c", WRITER]
    started = time.perf_counter()
    proc = asyncio.run(run_process(script, cwd=str(folder), env=child_env(), sandbox=profile))
    wall = time.perf_counter() - started
    assert proc.returncode == 0, proc.stderr
    # it saw its own writes, at its usual paths
    assert proc.stdout.split() == [str(folder), "3", "3", "['new.txt']"]
    assert fingerprint(folder) == before  # checked from outside: byte for byte, modes, times
    assert not list(Path(os.environ.get("TMPDIR", "/tmp")).glob("agentv-overlay-*/0/built.csv"))
    again = run_process_sync(script, cwd=str(folder), env=child_env(), sandbox=profile)
    assert again.returncode == 0 and again.stdout == proc.stdout  # a fresh copy each spawn
    assert fingerprint(folder) == before
    assert wall < 30


@pytest.mark.slow
def test_a_grader_still_cannot_write_beside_the_suite(tmp_path):
    folder = suite(tmp_path)
    before = fingerprint(folder)
    proc = asyncio.run(run_process(["python3", "-c", "open('built.csv', 'w')"],
                                   cwd=str(folder), env=child_env(), sandbox=Profile("grader")))
    assert proc.returncode != 0 and ("Read-only" in proc.stderr or "denied" in proc.stderr)
    assert fingerprint(folder) == before
