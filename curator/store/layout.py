"""Which kind of memory store a folder is, told by what it holds (never by its name).

`claude` is Claude Code's auto-memory and everything shaped like it: an index MEMORY.md
and memory files beside it. `openclaw` is an OpenClaw agent workspace: a root MEMORY.md
of prose and daily notes `memory/YYYY-MM-DD.md` (or `YYYY-MM-DD-<slug>.md`) without
frontmatter, next to the workspace's own files (AGENTS.md, SOUL.md, ...), which are not
memories. In a workspace the memories are the files under `memory/`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from curator.store import files

CLAUDE = "claude"
OPENCLAW = "openclaw"
INDEX_NAME = "MEMORY.md"
NOTES_FOLDER = "memory"
# An OpenClaw workspace's bootstrap files: any one of them (or a MEMORY.md) beside a
# folder of daily notes makes the folder a workspace.
WORKSPACE_FILES = (
    "AGENTS.md",
    "SOUL.md",
    "IDENTITY.md",
    "USER.md",
    "TOOLS.md",
    "HEARTBEAT.md",
    "BOOTSTRAP.md",
)
_DAILY_NOTE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[-_ .].*)?\.md$")


def is_daily_note(name: str) -> bool:
    """`2026-03-01.md`, `2026-03-01-request-timed-out.md`: OpenClaw's daily notes."""
    return bool(_DAILY_NOTE.match(name))


def _starts_with_frontmatter(path: Path) -> bool:
    head = files.read_head(path, 8)
    return head.removeprefix(b"\xef\xbb\xbf").startswith(b"---")


def holds_daily_notes(folder: Path) -> bool:
    """A notes folder: at least one daily note without frontmatter, and no index of its own
    (a folder with its own MEMORY.md is a store in its own right)."""
    if (folder / INDEX_NAME).exists():
        return False
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return False
    return any(
        is_daily_note(e.name) and e.is_file() and not _starts_with_frontmatter(Path(e.path))
        for e in entries
    )


def is_openclaw_workspace(folder: Path) -> bool:
    """A MEMORY.md or a workspace bootstrap file, beside `memory/` holding daily notes."""
    if not (folder / NOTES_FOLDER).is_dir():
        return False
    if not any((folder / name).is_file() for name in (INDEX_NAME, *WORKSPACE_FILES)):
        return False
    return holds_daily_notes(folder / NOTES_FOLDER)


def layout_of(root: Path) -> str:
    return OPENCLAW if is_openclaw_workspace(root) else CLAUDE


def memory_folder(root: Path, layout: str) -> Path:
    """Where a store's memory files are: the whole folder, or a workspace's `memory/`."""
    return root / NOTES_FOLDER if layout == OPENCLAW else root


def workspace_of(path: Path) -> Path | None:
    """The OpenClaw workspace whose notes folder holds `path` (a file or folder under
    `<workspace>/memory/`, or that folder itself); None otherwise."""
    for candidate in (path, *path.parents):
        if candidate.name == NOTES_FOLDER:
            workspace = candidate.parent
            return workspace if is_openclaw_workspace(workspace) else None
        if (candidate / INDEX_NAME).is_file() or (candidate / ".git").exists():
            return None  # a store or a repository comes first
    return None
