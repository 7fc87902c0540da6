"""A repository's files, listed and searched once per run.

In a git work tree the files are the tracked ones (`git ls-files`, so .gitignore is
honoured, submodules included); in a plain folder they are found by walking it, with
the usual build and dependency folders left out. Symbol search takes every word of a
run in one pass: one `git ls-files`, then one read of each file; never one process per
word.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import time
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path

from curator.git import git_output

# Folders a plain-folder walk never enters: dependencies, build outputs, VCS metadata.
WALK_SKIP = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        "dist",
        "build",
        "target",
        ".next",
    }
)
MAX_FILE_BYTES = 2 * 1024 * 1024
_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def is_git_worktree(root: Path) -> bool:
    """True when `root` is the top of a git work tree (main checkout, worktree, submodule)."""
    return (root / ".git").exists()


@lru_cache(maxsize=8)
def tracked_files(root: Path) -> tuple[str, ...]:
    """Repository-relative posix paths of the files curator may look at."""
    if is_git_worktree(root):
        listed = _git_ls_files(root)
        if listed is not None:
            return listed
    return tuple(_walk(root))


@lru_cache(maxsize=8)
def basenames(root: Path) -> frozenset[str]:
    """The file names (last path segment) present anywhere in the repository."""
    return frozenset(p.rsplit("/", 1)[-1] for p in tracked_files(root))


@lru_cache(maxsize=8)
def stems(root: Path) -> frozenset[str]:
    """File names without their last extension: `AndroidManifest` for AndroidManifest.xml."""
    return frozenset(n.rsplit(".", 1)[0] for n in basenames(root) if "." in n.strip("."))


@lru_cache(maxsize=8)
def _suffixes(root: Path) -> frozenset[str]:
    """Every trailing part of every file path, folders (with a trailing /) and extensionless
    stems included: `a/b/c.py` gives `b/c.py`, `c.py`, `b/c`, `b/`, `a/b/`..."""
    found: set[str] = set()
    for path in tracked_files(root):
        parts = path.split("/")
        stem = parts[-1].rsplit(".", 1)[0] if "." in parts[-1].strip(".") else None
        for i in range(len(parts)):
            found.add("/".join(parts[i:]))
            if stem:
                found.add("/".join([*parts[i:-1], stem]))
            if i < len(parts) - 1:
                found.add("/".join(parts[i:-1]) + "/")
    return frozenset(found)


def has_suffix(root: Path, path: str) -> bool:
    """True when some file or folder of the repository ends with `path` (leading ./ ignored)."""
    while path.startswith("./"):
        path = path[2:]
    path = path.rstrip("/") + "/" if path.endswith("/") else path
    return path in _suffixes(root)


def state_key(root: Path, timeout: float = 60.0) -> str | None:
    """What reference results depend on: HEAD plus a hash of the work tree's changes to
    tracked files. None for a plain folder (nothing cheap says it changed), on error, or
    when git takes longer than `timeout` seconds for either call.

    For a result cache (DESIGN §10): same key, same tracked content, same answers.
    """
    if not is_git_worktree(root):
        return None
    head = git_output(root, "rev-parse", "HEAD", timeout=timeout)
    status = git_output(root, "status", "--porcelain=v1", "-z", "--untracked-files=normal",
                        timeout=timeout)  # fmt: skip
    if head is None or status is None:
        return None
    if not status:
        return head.decode().strip()
    # A dirty tree: hash the changed tracked files' content, not just their names (a file
    # edited again stays " M"); untracked files count by name.
    digest = hashlib.sha256(status)
    for entry in status.split(b"\0"):
        if not entry or entry.startswith(b"??"):
            continue
        rel = entry[3:].decode("utf-8", "surrogateescape")
        digest.update(_content(root / rel))
    return f"{head.decode().strip()}+{digest.hexdigest()[:16]}"


def _content(path: Path) -> bytes:
    """A changed file's bytes; a FIFO or device put where a tracked file was is never
    read (opened non-blocking, checked regular on the open descriptor)."""
    try:
        flags = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)  # POSIX only
        fd = os.open(path, os.O_RDONLY | flags)
    except OSError:
        return b"<gone>"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b"<special>"
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read()
    except OSError:
        return b"<gone>"
    finally:
        os.close(fd)


def _git_ls_files(root: Path) -> tuple[str, ...] | None:
    out = git_output(root, "ls-files", "-z", "--recurse-submodules")
    if out is None:
        return None
    return tuple(p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p)


def _walk(root: Path) -> Iterator[str]:
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in WALK_SKIP)
        rel = Path(folder).relative_to(root).as_posix()
        prefix = "" if rel == "." else rel + "/"
        for name in sorted(files):
            yield prefix + name


def find_words(
    root: Path, words: Iterable[str], exclude: str | None = None, deadline: float | None = None
) -> set[str] | None:
    """The subset of `words` (identifiers) that occur as whole words in the repository.

    One pass: each tracked file is read once and split into identifiers, which are
    intersected with the words still missing; the pass stops when none is. (`git grep -F
    -f` tries every pattern on every line: with a few thousand symbols it is ~100x
    slower than this.) `exclude` is a repository-relative folder left out: the memory
    store, when it lives in the repository, must not vouch for its own words. Past
    `deadline` (a time.monotonic() value) the search gives up and returns None: an
    unfinished search cannot say a word is missing.
    """
    wanted = {w for w in words if w}
    if not wanted:
        return set()
    files = tracked_files(root)
    if exclude:
        prefix = exclude.rstrip("/") + "/"
        files = tuple(f for f in files if not f.startswith(prefix))
    return _scan_files(root, wanted, files, deadline)


def _scan_files(
    root: Path, wanted: set[str], files: Iterable[str], deadline: float | None
) -> set[str] | None:
    pending = {w.encode() for w in wanted}
    found: set[bytes] = set()
    for number, rel in enumerate(files):
        if deadline is not None and number % 256 == 0 and time.monotonic() > deadline:
            return None
        path = root / rel
        try:
            info = path.lstat()  # a symlink may point out of the repository: not followed
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        if b"\0" in data[:8192]:
            continue  # binary
        hits = pending.intersection(_WORD.findall(data))
        if hits:
            found |= hits
            pending -= hits
            if not pending:
                break
    return {w.decode() for w in found}
