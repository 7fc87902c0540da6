"""Read a memory store from disk: the index, every memory file, and what could not be read."""

from __future__ import annotations

import os
from pathlib import Path

from curator.hashing import sha256_bytes
from curator.models import FileProblem, Index, Memory, Store
from curator.store import files, frontmatter, layout
from curator.store.index import parse_index
from curator.store.layout import INDEX_NAME as INDEX_NAME  # re-exported: its old home

MAX_BYTES = 1024 * 1024


def split_lines(text: str) -> tuple[str, ...]:
    """Lines as an editor numbers them: only \\n (and \\r\\n) end a line."""
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    return tuple(p[:-1] if p.endswith("\r") else p for p in parts)


def _read_text(
    path: Path, rel: str, inside: tuple[Path, ...]
) -> tuple[str, bytes, float] | FileProblem:
    try:
        files.link_target(path, inside)
        data, info = files.read_regular(path, MAX_BYTES)
    except files.NotReadable as exc:
        return FileProblem(path, rel, exc.reason, exc.message)
    except OSError as exc:
        return FileProblem(path, rel, "unreadable", f"cannot read: {exc.strerror or exc}")
    if b"\x00" in data[:8192]:
        return FileProblem(path, rel, "binary", "file is binary (contains NUL bytes); not read")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return FileProblem(path, rel, "encoding", f"not valid UTF-8 at byte {exc.start}; not read")
    return text.removeprefix("\ufeff"), data, info.st_mtime


def read_memory(path: Path, root: Path, inside: tuple[Path, ...] = ()) -> Memory | FileProblem:
    """Read one memory file; a file that cannot be a memory becomes a FileProblem.

    A symlinked memory is read when it resolves inside the store or a folder of `inside`
    (the repository the store talks about)."""
    rel = path.relative_to(root).as_posix()
    read = _read_text(path, rel, (root, *inside))
    if isinstance(read, FileProblem):
        return read
    text, data, mtime = read
    lines = split_lines(text)
    fm = frontmatter.split(lines)
    return Memory(
        path=path,
        rel=rel,
        text=text,
        lines=lines,
        sha256=sha256_bytes(data),
        frontmatter=fm.data,
        frontmatter_error=fm.error,
        has_frontmatter=fm.present,
        body_line=fm.body_line,
        mtime=mtime,
    )


def _memory_paths(root: Path, start: Path) -> list[Path]:
    """Markdown files under `start` (hidden ones left out), the store's index excepted."""
    found: list[Path] = []
    if start != root and start.is_symlink():
        return found  # a workspace's `memory/` that leads elsewhere is not followed
    stack = [start]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
            elif entry.name.endswith(".md") and not (folder == root and entry.name == INDEX_NAME):
                found.append(Path(entry.path))
    return found


def _linked_index(root: Path) -> Path | None:
    """The file inside the store that a symlinked MEMORY.md leads to, if one does."""
    link = root / INDEX_NAME
    if not link.is_symlink():
        return None
    try:
        target = link.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    return target if target.is_relative_to(root) else None


def read_index(root: Path, inside: tuple[Path, ...] = ()) -> Index | FileProblem | None:
    path = root / INDEX_NAME
    if not os.path.lexists(path):
        return None
    read = _read_text(path, INDEX_NAME, (root, *inside))
    if isinstance(read, FileProblem):
        return read
    text, data, _ = read
    lines = split_lines(text)
    return Index(path, text, lines, sha256_bytes(data), parse_index(lines))


def read_store(root: Path, repo_root: Path | None = None) -> Store:
    """Read every memory under `root` (in an OpenClaw workspace, under its `memory/`).
    Never raises for a bad file: it becomes a problem. Symlinked folders are not
    followed; a symlinked file is read when it resolves inside the store or `repo_root`."""
    root = root.resolve()
    inside = (repo_root.resolve(),) if repo_root is not None else ()
    kind = layout.layout_of(root)
    problems: list[FileProblem] = []
    index = read_index(root, inside)
    if isinstance(index, FileProblem):
        problems.append(index)
        index = None
    memories: list[Memory] = []
    the_index = _linked_index(root)
    for path in sorted(_memory_paths(root, layout.memory_folder(root, kind))):
        if the_index is not None and path == the_index:
            continue  # MEMORY.md is a link to it: it is the index, not a memory
        result = read_memory(path, root, inside)
        if isinstance(result, FileProblem):
            problems.append(result)
        else:
            memories.append(result)
    return Store(root, index, tuple(memories), tuple(problems), layout=kind)
