"""Crash-safe file writes and the per-project lock.

A write goes to a temp file in the same folder and is renamed over the target, so a
reader sees the old file or the new one, never half of one. Nothing here is POSIX-only
at import time: the lock takes fcntl where it exists and msvcrt (Windows) where not.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hook's path)
if TYPE_CHECKING:
    from typing import Any


def write_text(path: Path, text: str, durable: bool = False) -> None:
    """Write `text` (UTF-8) to `path` atomically; see `write_bytes`."""
    write_bytes(path, text.encode("utf-8"), durable)


KILL_POINT_VARIABLE = "CURATOR_KILL_AT"


def kill_point(name: str) -> None:
    """A write point the tests stop at: `CURATOR_KILL_AT=<name>` SIGKILLs this process
    here, so a test can show what a crash at exactly this point leaves behind."""
    if os.environ.get(KILL_POINT_VARIABLE) == name:
        os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))


def write_bytes(path: Path, data: bytes, durable: bool = False) -> None:
    """Write `data` to `path` atomically (temp file + os.replace).

    No fsync by default: the rename already protects against a crashed process, and an
    fsync per finding would cost the session-start hook more than its whole budget.
    `durable` fsyncs the file and its folder too, for the few writes that must outlive
    a power cut (the fix journal a later `--undo` depends on).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = _temp_beside(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError) and exc.filename is None:  # a write's ENOSPC names none
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise
    if durable:
        sync_folder(path.parent)


def _temp_beside(path: Path) -> tuple[int, str]:
    """A new private file next to `path` (what `tempfile.mkstemp` does, without the
    import the session-start hook would pay for)."""
    while True:
        temp = str(path.parent / f".{path.name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), temp
        except FileExistsError:
            continue


def sync_folder(folder: Path) -> None:
    """fsync a folder, so the names created in it (a rename) survive a power cut.
    Windows opens no folder as a file, and its renames need no such step."""
    if sys.platform == "win32" or not hasattr(os, "O_DIRECTORY"):
        return
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def append_line(path: Path, line: bytes, durable: bool = False) -> bool:
    """Append one complete line (ending in a newline) with a single write(2) on an
    O_APPEND descriptor; True when all of it was written.

    Lines from concurrent writers land whole, one after another. A line some writer
    left torn (killed mid-write, a full disk) does not swallow this one: when the file
    does not end in a newline, this line starts with one, so the fragment stays a line
    of its own that readers skip as malformed. `durable` fsyncs after the write.
    """
    if not line.endswith(b"\n"):
        line += b"\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # O_NONBLOCK: a FIFO put where the log should be must not hang the caller.
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
        fd = os.open(path, flags, 0o644)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        # Held while the end is looked at and the line written, so another curator's
        # line still being copied in never looks torn. Bounded: a stopped holder costs
        # this line its guard, never the caller its time.
        _flock(fd, APPEND_LOCK_WAIT)
        size = os.fstat(fd).st_size
        if size and _byte_at(fd, size - 1) != b"\n":
            line = b"\n" + line
        written = os.write(fd, line)  # one write of the whole line: never interleaved
        if durable:
            os.fsync(fd)
    except OSError:
        return False
    finally:
        os.close(fd)  # closing the descriptor releases the lock
    return written == len(line)


APPEND_LOCK_WAIT = 1.0  # seconds


def _byte_at(fd: int, offset: int) -> bytes:
    if sys.platform == "win32" or not hasattr(os, "pread"):
        # No pread (Windows): the O_APPEND write goes to the end regardless of the seek.
        os.lseek(fd, offset, os.SEEK_SET)
        return os.read(fd, 1)
    return os.pread(fd, 1, offset)


# Where msvcrt's lock sits: one byte far past any real file's end, because Windows locks
# are mandatory and a lock on the data would stop readers.
_MSVCRT_LOCK_OFFSET = 0x7FFFFFFE


def try_lock(fd: int) -> bool:
    """Take an exclusive lock on `fd` without waiting: True when taken, False when another
    process holds it. Closing the descriptor releases it. The one place curator locks."""
    try:
        import fcntl
    except ImportError:  # Windows
        import msvcrt

        os.lseek(fd, _MSVCRT_LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined,unused-ignore]
        except OSError:
            return False
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # type: ignore[attr-defined,unused-ignore]
    except BlockingIOError:
        return False
    return True


def _flock(fd: int, timeout: float) -> bool:
    """Take an exclusive lock on `fd` within `timeout` seconds; False when it did not."""
    deadline = time.monotonic() + timeout
    while not try_lock(fd):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.001)
    return True


def write_json(path: Path, data: Any, durable: bool = False) -> None:
    write_text(path, json.dumps(data, indent=2, sort_keys=True, default=str) + "\n", durable)


def read_json(path: Path) -> Any:
    """The parsed file, or None when it is missing or not valid JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None


@contextmanager
def locked(path: Path, timeout: float = 30.0) -> Iterator[None]:
    """Hold an exclusive flock on `path` (created if needed) for the block.

    Waits at most `timeout` seconds, then raises TimeoutError: a stuck process must not
    hang every session start behind it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if not _flock(fd, timeout):
            raise TimeoutError(f"{path} is locked by another process")
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
