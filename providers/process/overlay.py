"""A throwaway overlay of a command's working folder (issue #38): bwrap 0.8 has no
``--overlay``, so the folder is copied into a fresh scratch folder per spawn and the copy is
bound at the original path (``--bind COPY ORIGINAL``). The program sees its usual paths and
may write, rename and delete beside its files; what it writes lands in the copy, which is
removed when the process ends — the user's folder is never changed.

The copy keeps symlinks as links, file contents, modes and times, and adds the owner's write
bit (a folder that is read-only on disk — a suite checked out read-only — is writable in its
copy). A folder over the cap (``AGENTV_OVERLAY_MAX_FILES`` entries, ``AGENTV_OVERLAY_MAX_MB``
megabytes; 0 turns overlays off) is not copied: it stays read-only, and the run logs one
warning per folder naming the cap and the setting to change.

Which spawns get one is the caller's choice (``Profile.overlay``): ``cli`` targets (single
and batch) and their healthchecks, for the folder they run in when it is not already their
writable workspace; graders, hooks and agents never (graders stay read-only).
"""
from __future__ import annotations

import logging
import os
import shutil
import stat
import tempfile
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentv.providers.process.sandbox import Profile

log = logging.getLogger("agentv.sandbox")

DEFAULT_MAX_FILES = 5000
DEFAULT_MAX_MB = 200
_WARNED: set[str] = set()


def limits() -> tuple[int, int]:
    """(files, bytes) from ``AGENTV_OVERLAY_MAX_FILES`` / ``AGENTV_OVERLAY_MAX_MB``."""
    return (_number("AGENTV_OVERLAY_MAX_FILES", DEFAULT_MAX_FILES),
            _number("AGENTV_OVERLAY_MAX_MB", DEFAULT_MAX_MB) * 1024 * 1024)


def _number(name: str, default: int) -> int:
    try:
        return max(0, int(os.environ.get(name, default)))
    except ValueError:
        return default


def prepare(profile: Profile | None) -> tuple[Profile | None, str | None]:
    """``profile`` with its overlay folders copied (``Profile.copies``) and the scratch
    folder holding the copies (remove it with ``discard``; None: nothing copied)."""
    if profile is None or not profile.overlay or not profile.enabled:
        return profile, None
    folders = [f for f in profile.overlay if _wanted(f, profile.writable)]
    fits = [f for f in folders if _fits(f)]
    if not fits:
        return profile, None
    scratch = tempfile.mkdtemp(prefix="agentv-overlay-")
    copies = []
    try:
        for n, folder in enumerate(fits):
            copy = os.path.join(scratch, str(n))
            copy_tree(folder, copy)
            copies.append((copy, folder))
    except BaseException:
        discard(scratch)
        raise
    return replace(profile, copies=tuple(copies)), scratch


def discard(scratch: str | None) -> None:
    """Remove the copies (files the program made read-only included)."""
    if scratch:
        shutil.rmtree(scratch, onerror=_force)


def _force(func, path, _exc) -> None:
    try:
        os.chmod(os.path.dirname(path), 0o700)
        if os.path.isdir(path) and not os.path.islink(path):
            os.chmod(path, 0o700)
        func(path)
    except OSError:
        pass


def _wanted(folder: str, writable: tuple[str, ...]) -> bool:
    folder = os.path.abspath(folder)
    if folder == "/" or not os.path.isdir(folder):
        return False
    return not any(folder == w or folder.startswith(w.rstrip("/") + "/") for w in writable)


def _fits(folder: str) -> bool:
    """Within the cap (counted until it is passed); over it: one warning per folder."""
    max_files, max_bytes = limits()
    if max_files == 0 or max_bytes == 0:
        return False
    files, size = 0, 0
    stack = [folder]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            files += 1
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
            elif entry.is_file(follow_symlinks=False):
                size += entry.stat(follow_symlinks=False).st_size
            if files > max_files or size > max_bytes:
                _warn_once(folder, max_files, max_bytes)
                return False
    return True


def _warn_once(folder: str, max_files: int, max_bytes: int) -> None:
    if folder in _WARNED:
        return
    _WARNED.add(folder)
    log.warning("sandbox: %s is over the overlay cap (%d files or %d MB): it stays read-only "
                "for the programs run in it; raise AGENTV_OVERLAY_MAX_FILES / "
                "AGENTV_OVERLAY_MAX_MB to give them a throwaway writable copy", folder,
                max_files, max_bytes // (1024 * 1024))


def copy_tree(src: str, dst: str, top: str | None = None) -> None:
    """``src`` to ``dst``: symlinks kept as links, contents, modes (plus the owner's write
    bit) and times copied; sockets, FIFOs and devices skipped. ``top``: a workspace
    template's folder — each link leaving it is a consent warning (``LEFT``)."""
    os.mkdir(dst, 0o700)
    for entry in os.scandir(src):
        target = os.path.join(dst, entry.name)
        try:
            if entry.is_symlink():
                os.symlink(os.readlink(entry.path), target)
                if top is not None:
                    _leaves(entry.path, top)
            elif entry.is_dir():
                copy_tree(entry.path, target, top)
            elif entry.is_file():
                shutil.copy2(entry.path, target)
                os.chmod(target, stat.S_IMODE(os.stat(target).st_mode) | stat.S_IWUSR)
        except PermissionError:
            continue  # unreadable to us: absent in the copy, as the sandbox would hide it
    shutil.copystat(src, dst)
    os.chmod(dst, stat.S_IMODE(os.stat(src).st_mode) | stat.S_IWUSR | stat.S_IXUSR)


LEFT: dict[str, str] = {}  # link in a workspace template -> where it leads, outside it


def _leaves(link: str, top: str) -> None:
    real, root = os.path.realpath(link), os.path.realpath(top)
    if real == root or real.startswith(root.rstrip("/") + "/") or link in LEFT:
        return
    LEFT[link] = real
    log.warning("sandbox: workspace template %s holds a symlink leaving it: %s -> %s (copied "
                "as a link; inside the sandbox it reaches only what the sandbox shows)", top,
                os.path.relpath(link, top), real)
