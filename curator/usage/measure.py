"""Which memories sessions actually used: transcripts and the event log, combined.

Transcripts are the strong source (a `Read` of a memory file is a use); the event log's
`memory.recalled` / `memory.referenced` events are added when present. Both are read
only as far back as the window, and transcripts through a per-file cache.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import NamedTuple

from curator.models import Store
from curator.usage.events import read_events
from curator.usage.transcript_cache import TranscriptCache
from curator.usage.transcripts import in_project, project_folders, scan_transcript

_STORE_TAIL = re.compile(r"/projects/([^/]+)/memory/(.+)$")
_MAX_DEPTH = 3  # <slug>/<session>/subagents/agent-*.jsonl


class UsageQuery(NamedTuple):
    """Where to look and how far back. Hashable, so two rules share one measurement."""

    store: Path
    store_slug: str | None
    checkouts: tuple[Path, ...]
    projects: tuple[Path, ...]
    events_log: Path | None
    event_types: frozenset[str]
    since: date
    cache: Path | None
    transcripts: bool = True
    read_budget: int = 0  # bytes of uncached transcripts to read this run; 0: no limit


@dataclass
class Usage:
    last_use: dict[str, str] = field(default_factory=dict)  # memory rel -> latest timestamp
    sources: list[str] = field(default_factory=list)
    malformed: int = 0
    transcripts: int = 0  # transcript files of the project, any age
    read: int = 0  # parsed this run
    cached: int = 0  # taken from the cache
    old: int = 0  # skipped: last written before the window
    pending: int = 0  # not read this run: the read budget was spent (newest are read first)


class MemoryMatcher:
    """Map a file path as a session wrote it to a memory of the store."""

    def __init__(self, store: Store, store_slug: str | None) -> None:
        self.by_path = {str(m.path): m.rel for m in store.memories}
        self.rels = {m.rel for m in store.memories}
        self.basenames = {m.path.name for m in store.memories}
        self.root = store.root
        self.store_slug = store_slug

    def match(self, name: str, base: Path | str | None) -> str | None:
        path = os.path.expanduser(name)
        if not os.path.isabs(path):
            if base is None:
                return None
            path = os.path.join(base, path)
        path = os.path.normpath(path)
        if path in self.by_path:
            return self.by_path[path]
        if os.path.basename(path) not in self.basenames:
            return None  # most touched files are not memories: spare them the stat calls
        # The same store reached through another config root (moved home, other mount).
        tail = _STORE_TAIL.search(path)
        if tail and tail.group(1) == self.store_slug and tail.group(2) in self.rels:
            return tail.group(2)
        return self.by_path.get(os.path.realpath(path))

    def match_bare(self, name: str) -> str | None:
        """A store-relative name (`x.md`, `memory/x.md`) from an event about this project."""
        rel = name.removeprefix("./").removeprefix(f"{self.root.name}/")
        return rel if rel in self.rels else None


def transcript_files(folder: Path) -> list[os.DirEntry[str]]:
    """`*.jsonl` under a slug folder (sessions and their subagents), never the memory store."""
    found: list[os.DirEntry[str]] = []
    stack = [(folder, 0)]
    while stack:
        current, depth = stack.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            if entry.name.endswith(".jsonl") and entry.is_file():
                found.append(entry)
            elif depth < _MAX_DEPTH and entry.name != "memory" and entry.is_dir():
                stack.append((Path(entry.path), depth + 1))
    return found


def _note(usage: Usage, stamp: str, rel: str | None) -> None:
    if rel is not None and stamp > usage.last_use.get(rel, ""):
        usage.last_use[rel] = stamp


def _from_transcripts(query: UsageQuery, matcher: MemoryMatcher, usage: Usage) -> None:
    cache = TranscriptCache(query.cache)
    first = query.since.isoformat()
    # A day of slack: an mtime is local time, timestamps are UTC.
    oldest = datetime.combine(query.since, datetime.min.time(), timezone.utc) - timedelta(days=1)
    checkouts = list(query.checkouts)
    files = [
        (entry.stat(), Path(entry.path), folder)
        for projects in query.projects
        for folder in project_folders(projects, checkouts, query.store_slug)
        for entry in transcript_files(folder)
    ]
    usage.transcripts = len(files)
    spent = 0
    # Newest first: when the read budget runs out, the cache fills from the recent end.
    for stat, path, folder in sorted(files, key=lambda f: -f[0].st_mtime):
        if stat.st_mtime < oldest.timestamp():
            usage.old += 1
            continue
        found = cache.get(path, stat.st_size, stat.st_mtime_ns)
        if found is None:
            if query.read_budget and spent >= query.read_budget:
                usage.pending += 1
                continue
            try:
                found = scan_transcript(path)
            except OSError:
                continue
            cache.put(path, stat.st_size, stat.st_mtime_ns, found)
            spent += stat.st_size
            usage.read += 1
        else:
            usage.cached += 1
        if not in_project(found, folder, checkouts, query.store_slug):
            continue
        usage.malformed += found.malformed
        fallback = datetime.fromtimestamp(stat.st_mtime, timezone.utc).isoformat()
        for name, stamp in found.uses.items():
            stamp = stamp or fallback
            if stamp[:10] >= first:
                _note(usage, stamp, matcher.match(name, found.cwd))
    cache.save()
    if usage.transcripts:
        usage.sources.append("transcripts")


def _in_scope(scope: tuple[str, ...], query: UsageQuery) -> bool:
    for folder in scope:
        path = Path(os.path.normpath(os.path.expanduser(folder)))
        if path == query.store or any(path == c or path.is_relative_to(c) for c in query.checkouts):
            return True
    return False


def _from_events(query: UsageQuery, matcher: MemoryMatcher, usage: Usage) -> None:
    if query.events_log is None:
        return
    events = read_events(query.events_log, query.since, query.event_types)
    usage.malformed += events.malformed
    if not events.found:
        return
    usage.sources.append("event log")
    for name, stamp in events.uses.items():
        _note(usage, stamp, matcher.match(name, None))
    for (scope, name), stamp in events.scoped.items():
        if _in_scope(scope, query):
            _note(usage, stamp, matcher.match_bare(name))


_MEMO: dict[tuple[UsageQuery, tuple[str, ...]], Usage] = {}


def measure_usage(store: Store, query: UsageQuery) -> Usage:
    """Latest use in the window of each memory, from every source that exists.

    Both usage rules ask for the same measurement; it is made once per store and run.
    """
    key = (query, tuple(str(m.path) for m in store.memories))
    if key in _MEMO:
        return _MEMO[key]
    usage = Usage()
    matcher = MemoryMatcher(store, query.store_slug)
    if query.transcripts:
        _from_transcripts(query, matcher, usage)
    _from_events(query, matcher, usage)
    if len(_MEMO) > 8:
        _MEMO.clear()
    _MEMO[key] = usage
    return usage
