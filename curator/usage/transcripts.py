"""Claude Code's session transcripts: which belong to a project, which memory files they touched.

A transcript is `<config>/projects/<slug>/<session>.jsonl`, one JSON object a line; an
assistant line carries `message.content[]` blocks, and a `tool_use` block names the tool
and its `input` (`file_path` for Read, Edit, Write, MultiEdit; `notebook_path` for
NotebookEdit). The slug is the session's working directory, so one repository's
sessions spread over several slugs: the main checkout, its subfolders (the root's slug
plus `-sub-folder`) and its worktrees (other paths altogether).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from curator.findings.jsonl import Shapes, lines_containing
from curator.git import git_output
from curator.store.discovery import SLUG_MAX, project_slug

FILE_TOOLS = frozenset({"Read", "Edit", "Write", "MultiEdit", "NotebookEdit"})
PATH_KEYS = ("file_path", "notebook_path")
_TOOL_USE = b'"tool_use"'
_PATH_MARKERS = tuple(f'"{key}"'.encode() for key in PATH_KEYS)


@dataclass
class TranscriptUses:
    """What one transcript says: its working directory and the `.md` files its tools touched."""

    cwd: str | None = None
    uses: dict[str, str] = field(default_factory=dict)  # file path as written -> latest timestamp
    malformed: int = 0


def worktree_paths(repo_root: Path) -> list[Path]:
    """Every checkout of the repository (`git worktree list`), main checkout included."""
    out = git_output(repo_root, "worktree", "list", "--porcelain", timeout=10)
    if out is None:
        return [repo_root]
    paths = [
        Path(line[len("worktree ") :])
        for line in out.decode("utf-8", "surrogateescape").splitlines()
        if line.startswith("worktree ")
    ]
    return paths or [repo_root]


def _belongs(name: str, slug: str) -> bool:
    """A slug folder is the checkout's own, a subfolder's (slug + `-…`), or a cut long one."""
    if name == slug or name.startswith(slug + "-"):
        return True
    return len(slug) > SLUG_MAX and name.startswith(slug[:SLUG_MAX])


def project_folders(projects: Path, checkouts: list[Path], store_slug: str | None) -> list[Path]:
    """Slug folders under `projects` that may hold this project's sessions.

    A folder whose name extends a checkout's slug may also be a sibling (`/a/proj-old`
    next to `/a/proj`); `in_project` settles that per transcript from its `cwd`.
    """
    slugs = [project_slug(c) for c in checkouts]
    try:
        entries = [e for e in os.scandir(projects) if e.is_dir()]
    except OSError:
        return []
    found = []
    for entry in entries:
        if entry.name == store_slug or any(_belongs(entry.name, s) for s in slugs):
            found.append(Path(entry.path))
    return sorted(found)


def in_project(
    uses: TranscriptUses, folder: Path, checkouts: list[Path], store_slug: str | None
) -> bool:
    """Whether a transcript's session ran inside one of the checkouts."""
    if uses.cwd is None:
        exact = {project_slug(c) for c in checkouts} | {store_slug}
        return folder.name in exact
    cwd = Path(uses.cwd)
    return folder.name == store_slug or any(cwd == c or cwd.is_relative_to(c) for c in checkouts)


def scan_transcript(path: Path) -> TranscriptUses:
    """Stream one transcript; keep each `.md` file a file tool touched with its latest timestamp.

    Only lines holding a `tool_use` are split out and parsed; every other line just gets
    its shape counted, so a torn or garbage line is still reported as malformed.
    """
    result = TranscriptUses()
    shapes = Shapes()
    with path.open("rb") as fh:
        for line in lines_containing(fh, _TOOL_USE, shapes):
            if not any(marker in line for marker in _PATH_MARKERS):
                continue
            try:
                entry = json.loads(line)
            except (ValueError, RecursionError):  # nested past Python's stack: skipped
                entry = None
            if not isinstance(entry, dict):
                well_shaped = line.strip()[:1] == b"{" and line.strip()[-1:] == b"}"
                result.malformed += well_shaped  # a badly shaped line is already counted
                continue
            if result.cwd is None and isinstance(entry.get("cwd"), str):
                result.cwd = entry["cwd"]
            _collect(entry, result.uses)
    result.malformed += shapes.malformed
    return result


def _collect(entry: dict[str, object], uses: dict[str, str]) -> None:
    message = entry.get("message")
    if entry.get("type") != "assistant" or not isinstance(message, dict):
        return
    content = message.get("content")
    if not isinstance(content, list):
        return
    stamp = entry.get("timestamp")
    stamp = stamp if isinstance(stamp, str) else ""
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "tool_use":
            continue
        if block.get("name") not in FILE_TOOLS or not isinstance(block.get("input"), dict):
            continue
        for key in PATH_KEYS:
            value = block["input"].get(key)
            if isinstance(value, str) and value.endswith(".md") and stamp >= uses.get(value, ""):
                uses[value] = stamp
