"""Replacing a memory file's bytes the way a person's editor would, only atomically.

The new bytes go to a temporary file that is renamed over the file, so a reader (or a
crash) sees the old file or the new one. The temporary file never lives in the store,
where the agent reads every file: it is made in curator's own state folder when that
is on the store's filesystem (a rename cannot cross filesystems), else beside the
store, and only as the last resort beside the file. The file keeps its mode and, where
this process may set it, its owner; a symlink is written through, never replaced.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from pathlib import Path

from curator.errors import UserError
from curator.findings import atomic


def temp_folder(target: Path, candidates: list[Path]) -> Path:
    """The first candidate folder on `target`'s filesystem, else `target`'s own folder."""
    device = os.stat(target.parent).st_dev
    for folder in candidates:
        with contextlib.suppress(OSError):
            if folder.is_dir() and os.stat(folder).st_dev == device:
                return folder
    return target.parent


def temp_path(target: Path, folder: Path, name: str) -> Path:
    """Where the new bytes of `target` are written before the rename; hidden when the
    last resort puts it beside the file."""
    return folder / (f".curator-{name}.tmp" if folder == target.parent else f"{name}.tmp")


def replace(target: Path, data: bytes, temp: Path, kill_at: str = "") -> None:
    """Put `data` in `target` (a regular file, symlinks already resolved) by way of
    `temp`, keeping the file's mode and owner; `temp` is gone whatever happens."""
    before = os.stat(target)
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if sys.platform != "win32":  # Windows keeps no POSIX mode or owner
                os.fchmod(handle.fileno(), stat.S_IMODE(before.st_mode))
                with contextlib.suppress(PermissionError):  # only root may give a file away
                    os.fchown(handle.fileno(), before.st_uid, before.st_gid)
        if kill_at:
            atomic.kill_point(kill_at)
        os.replace(temp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError) and exc.filename is None:
            raise OSError(exc.errno, exc.strerror, str(temp)) from exc
        raise


def write_through(path: Path, store: Path | None) -> Path | None:
    """The file a write to `path` must change: `path` itself, or the file its symlink
    names when that lies inside `store` (None: a link that leaves the store)."""
    if not path.is_symlink():
        return path
    resolved = path.resolve()
    if store is not None and resolved.is_relative_to(store.resolve()):
        return resolved
    return None


def write_memory(path: Path, data: bytes, own_temp: Path, store: Path) -> None:
    """Replace a memory file's bytes (`curator review`'s edits): through its symlink when
    that stays in the store, mode and owner kept, the temporary file outside the store."""
    target = write_through(path, store)
    if target is None:
        raise UserError("a symlink to a file outside the store; not changed", path)
    own_temp.mkdir(parents=True, exist_ok=True)
    folder = temp_folder(target, [own_temp, store.resolve().parent])
    replace(target, data, temp_path(target, folder, f"review.{os.urandom(6).hex()}"))
