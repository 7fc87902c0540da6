"""When each file of a folder was last committed: one `git log` for the folder, cached per HEAD.

In a fresh clone every file's mtime is the clone time, so a memory's write date comes from
git when the file is tracked and unchanged since HEAD (`interpreter.write_dates`). This
module answers the git half: for each file under a folder, the blob HEAD holds and the
author date of the last commit that touched it. One `git ls-tree` and one `git log` per
HEAD, never one process per file; the answer is kept as JSON (nothing that loading could
execute) in a cache folder the caller names. After a new commit, files whose blob did not
change keep their date, so `git log` only walks back to the files that did.
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import date
from pathlib import Path
from typing import NamedTuple

from curator.git import git_output, stream

CACHE_VERSION = 1
GIT_SECONDS = 20.0  # a first `git log` on a long history; past it, mtimes are used
_MARK = "\x01"  # opens a commit's date in the `git log` stream


class FileCommit(NamedTuple):
    """A file as HEAD has it: its blob id and the day its last commit was authored."""

    blob: str
    day: date


def blob_id(data: bytes) -> str:
    """git's object id of a file with this content (`git hash-object`)."""
    digest = hashlib.sha1(b"blob %d\0" % len(data))  # git's object id, not a security use
    digest.update(data)
    return digest.hexdigest()


def last_commits(repo: Path, folder: Path, cache: Path | None) -> dict[str, FileCommit]:
    """Folder-relative posix path -> FileCommit for each file HEAD holds under `folder`.

    Empty when `folder` is not inside `repo`, HEAD does not exist or git fails. `cache`
    is a folder for the JSON cache (None: no cache).
    """
    try:
        prefix = folder.resolve().relative_to(repo.resolve()).as_posix()
    except ValueError:
        return {}
    head_out = git_output(repo, "rev-parse", "--verify", "-q", "HEAD", timeout=10)
    if head_out is None:
        return {}
    head = head_out.decode().strip()
    where = _cache_file(cache, repo, prefix) if cache is not None else None
    known: dict[str, FileCommit] = {}
    if where is not None:
        kept_head, kept = _read_cache(where)
        if kept_head == head:
            return kept
        known = kept
    found = _from_git(repo, "" if prefix == "." else prefix, known)
    if found is None:
        return {}
    if where is not None:
        _write_cache(where, head, found)
    return found


def _from_git(
    repo: Path, prefix: str, known: dict[str, FileCommit]
) -> dict[str, FileCommit] | None:
    """Read HEAD's blobs under `prefix`; a file whose blob the last answer (`known`, for an
    older HEAD) already dated keeps its date, so `git log` stops at the newest changes."""
    spec = f":(literal){prefix}" if prefix else "."
    listed = git_output(repo, "ls-tree", "-r", "-z", "HEAD", "--", spec, timeout=GIT_SECONDS)
    if listed is None:
        return None
    blobs: dict[str, str] = {}
    for entry in listed.split(b"\0"):
        meta, _, path = entry.partition(b"\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == b"blob":
            blobs[path.decode("utf-8", "surrogateescape")] = parts[2].decode()
    cut = len(prefix) + 1 if prefix else 0
    dated = {
        path: known[path[cut:]].day
        for path, blob in blobs.items()
        if path[cut:] in known and known[path[cut:]].blob == blob
    }
    days = _last_days(repo, spec, set(blobs) - set(dated))
    if days is None:
        return None
    days.update(dated)
    return {
        path[cut:]: FileCommit(blob, days[path]) for path, blob in blobs.items() if path in days
    }


def _last_days(repo: Path, spec: str, wanted: set[str]) -> dict[str, date] | None:
    """The newest author day naming each wanted path, reading `git log` until all are found.

    Stopping early matters on long histories: the files a store holds today were mostly
    touched recently.
    """
    if not wanted:
        return {}
    args = ["log", "--no-renames", f"--format={_MARK}%ad", "--date=short", "--name-only",
            "-z", "HEAD", "--", spec]  # fmt: skip
    days: dict[str, date] = {}
    day: date | None = None
    pending = b""
    with stream(repo, args, GIT_SECONDS) as running:
        if running is None:
            return None
        assert running.proc.stdout is not None
        while len(days) < len(wanted):
            chunk = os.read(running.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                break
            *tokens, pending = (pending + chunk).split(b"\0")
            for token in tokens:
                text = token.decode("utf-8", "surrogateescape").lstrip("\n")
                if text.startswith(_MARK):
                    day = _day(text[1:])
                elif text and day is not None and text in wanted:
                    days.setdefault(text, day)
    # Killed at the bound: the newest days of the rest were never read (leaving early
    # once every file is dated kills git too, and is no loss).
    return None if running.expired else days


def _day(text: str) -> date | None:
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        return None


def _cache_file(cache: Path, repo: Path, prefix: str) -> Path:
    key = hashlib.sha256(f"{repo.resolve()}\0{prefix}".encode()).hexdigest()[:20]
    return cache / "commit-dates" / f"{key}.json"


def _read_cache(path: Path) -> tuple[str | None, dict[str, FileCommit]]:
    """(the HEAD it answered for, its files); (None, {}) when missing, torn or foreign."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != CACHE_VERSION:
            return None, {}
        files = {
            str(rel): FileCommit(str(blob), date.fromisoformat(str(day)))
            for rel, (blob, day) in data["files"].items()
        }
        return str(data["head"]), files
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None, {}


def _write_cache(path: Path, head: str, files: dict[str, FileCommit]) -> None:
    data = {
        "version": CACHE_VERSION,
        "head": head,
        "files": {rel: [f.blob, f.day.isoformat()] for rel, f in sorted(files.items())},
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass  # an unwritable cache only costs a `git log` next time
