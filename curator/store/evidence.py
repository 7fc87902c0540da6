"""Whether a folder is a memory store, told by what it holds, and why.

`curator lint --all DIR` takes a folder as a store when it is an OpenClaw workspace, holds
a MEMORY.md that links files, holds markdown files with memory frontmatter (`name` and
`type`, flat or under `metadata:`), or is Claude Code's `projects/<slug>/memory` with
markdown in it. A folder named on the command line needs less: a MEMORY.md, or any
markdown file that opens with frontmatter, will do.
"""

from __future__ import annotations

import os
from pathlib import Path

from curator.store import files, frontmatter, layout
from curator.store.index import parse_index
from curator.store.layout import INDEX_NAME

HEAD_BYTES = 4096  # enough of a file to see its frontmatter or its first links
MAX_PEEKS = 50  # files opened per folder before giving up on frontmatter


def _head(path: Path, size: int = HEAD_BYTES) -> str:
    return files.read_head(path, size).decode("utf-8", "replace")


def _markdown(folder: Path) -> list[Path]:
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [folder / n for n in names if n.endswith(".md") and n != INDEX_NAME]


def _index_links(folder: Path) -> bool:
    index = folder / INDEX_NAME
    if not index.is_file():
        return False
    lines = tuple(_head(index, 64 * 1024).splitlines())
    return any(not entry.is_url for entry in parse_index(lines))


def _memory_frontmatter(path: Path) -> bool:
    text = _head(path)
    if not text.startswith("---"):
        return False
    data = frontmatter.split(tuple(text.splitlines())).data
    return bool(data.get("name") and data.get("type")) or data.get("node_type") == "memory"


def store_evidence(folder: Path) -> str | None:
    """Why `folder` looks like a memory store, in a few words; None when it does not."""
    if layout.is_openclaw_workspace(folder):
        return "an OpenClaw workspace: daily notes in memory/"
    if _index_links(folder):
        return "a MEMORY.md that links files"
    markdown = _markdown(folder)
    in_projects = folder.name == "memory" and folder.parent.parent.name == "projects"
    if in_projects and (markdown or (folder / INDEX_NAME).is_file()):
        return "Claude Code's projects/<slug>/memory"
    if any(_memory_frontmatter(p) for p in markdown[:MAX_PEEKS]):
        return "markdown files with memory frontmatter"
    return None


def is_store(folder: Path) -> bool:
    """Whether a folder named on the command line can be linted as a store."""
    if (folder / INDEX_NAME).is_file() or store_evidence(folder) is not None:
        return True
    return any(_head(p, 8).startswith("---") for p in _markdown(folder)[:MAX_PEEKS])


NOT_A_STORE = (
    "not a memory store: no MEMORY.md, no memory files with frontmatter, "
    "and not an OpenClaw workspace"
)
