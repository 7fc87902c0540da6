"""Open a file of the store without blocking and without leaving the folders it may use.

Only regular files are read. A FIFO, a socket or a device is refused by its type before
it is opened, and the open itself is non-blocking (a FIFO swapped in between would
otherwise wait for a writer forever); the type is checked again on the open descriptor.
A symlink is read only when it resolves inside one of the folders the caller allows;
a symlink loop or a dangling symlink is unreadable, never an exception.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

# Opening a FIFO must not hang the read (POSIX; Windows has no FIFOs in the file system).
_NONBLOCK: int = getattr(os, "O_NONBLOCK", 0)

_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFDIR: "a folder",
}


class NotReadable(Exception):
    """A file curator will not read; `reason` is CUR004's reason, `message` says why."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def _kind(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def _refuse_special(mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise NotReadable("special", f"{_kind(mode)}, not a regular file; not read")


def link_target(path: Path, inside: tuple[Path, ...]) -> Path | None:
    """Where `path` leads when it is a symlink (None when it is not one).

    Raises NotReadable for a loop, a dangling link, or a target outside every folder
    of `inside`.
    """
    if not path.is_symlink():
        return None
    try:
        target = Path(os.path.realpath(path, strict=True))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotReadable("unreadable", "symlink loop; not read") from None
        raise NotReadable("unreadable", f"symlink leads nowhere: {exc.strerror or exc}") from None
    if not any(target.is_relative_to(folder) for folder in inside):
        raise NotReadable("symlink", f"symlink leads out of the store to {target}")
    return target


def read_regular(path: Path, max_bytes: int) -> tuple[bytes, os.stat_result]:
    """The bytes and stat of a regular file of at most `max_bytes`; follows a symlink
    (callers vet it with `link_target` first). Raises NotReadable or OSError."""
    _refuse_special(os.stat(path).st_mode)
    fd = os.open(path, os.O_RDONLY | _NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        _refuse_special(info.st_mode)  # swapped for a FIFO between the stat and the open
        if info.st_size > max_bytes:
            size = f"{info.st_size / 1024 / 1024:.1f} MiB"
            limit = f"{max_bytes / 1024 / 1024:g} MiB"
            raise NotReadable("huge", f"file is {size}, over the {limit} limit; not read")
        chunks: list[bytes] = []
        total = 0
        while True:  # to the end, or past the limit when the file grows while read
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise NotReadable("huge", f"file grew over the {max_bytes} byte limit; not read")
        return b"".join(chunks), info
    finally:
        os.close(fd)


def read_head(path: Path, size: int) -> bytes:
    """The first `size` bytes of a regular file; b"" for anything else or on any error."""
    try:
        _refuse_special(os.stat(path).st_mode)
        fd = os.open(path, os.O_RDONLY | _NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except (OSError, NotReadable):
        return b""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        return os.read(fd, size)
    except OSError:
        return b""
    finally:
        os.close(fd)
