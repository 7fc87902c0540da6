"""What the session-start hook compares before it trusts its last answer: the store's
signature (stat calls only) and the repository's state. Light on purpose: the hook's
quick path imports it before anything else of curator's.
"""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path

from curator.hashing import sha256_text


def repo_state(repo: Path | None, timeout: float = 60.0) -> str:
    """HEAD and the working tree's changes, as one key ('' outside a repository).

    `tree.state_key`: changed tracked files count by content, so editing a file
    that was already modified still invalidates reference results.
    """
    if repo is None:
        return ""
    from curator.repo.tree import state_key

    return state_key(repo, timeout) or "unknown"


def cache_folder(project_root: Path) -> Path:
    return project_root / "cache"


def file_identity(path: str) -> list[object]:
    """What a store file reads as, from stat calls: the stat of what it leads to (mtime,
    ctime, size, inode), or why there is nothing (a dangling link, a loop: the errno); a
    symlink adds where it points, so relinking it is a change even when both ends fail."""
    out: list[object]
    try:
        stat = os.stat(path)
        out = [stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size, stat.st_ino]
    except OSError as exc:
        out = [exc.errno]
    if os.path.islink(path):
        try:
            out.append(os.readlink(path))
        except OSError:
            out.append(None)
    return out


def store_signature(
    ruleset: str, today: date, store: Path, repo: Path | None, state: str, manifest: Path
) -> str:
    """Everything a session-start result depends on, from stat calls alone.

    Equal signatures mean the last full run's findings still stand: same files (name,
    size, mtime, ctime), same rules and config, same day, same repository state, and no
    finding changed by hand since (the manifest's stat). ctime because tools that keep
    mtimes (cp -p, rsync -t, tar) can change a file's content under the same size and
    mtime; any write moves ctime, and nothing can set it back.
    """
    files = []
    for folder, dirs, names in os.walk(store):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(folder, name)
            files.append([os.path.relpath(path, store), *file_identity(path)])
    try:
        manifest_stat = os.stat(manifest)
        stamp: list[int] | None = [manifest_stat.st_mtime_ns, manifest_stat.st_size]
    except OSError:
        stamp = None
    blob = json.dumps([ruleset, today.isoformat(), str(store), str(repo), state, files, stamp])
    return sha256_text(blob)
