"""When a memory was written, and how curator knows: the one answer every check uses.

In order: the frontmatter's `modified`, `promoted_at`, `created_at`; then, when the file
is tracked and unchanged in the git repository that holds the store (which may not be
the repository its memories talk about), the day of its last commit; then the file's
mtime. A fresh clone makes every mtime the clone time, so git comes before the mtime.

A frontmatter date that cannot be a write date (`2026-02-30`, `0000-00-00`, a day after
today) is skipped here and reported by CUR001 (`frontmatter_date_problems`).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any, NamedTuple

from curator.findings.onlooker import cache_dir
from curator.models import Memory
from curator.repo.commit_dates import FileCommit, blob_id, last_commits
from curator.store import discovery
from curator.store.frontmatter import as_date

if TYPE_CHECKING:
    from curator.interpreter.context import Context

FRONTMATTER_KEYS = ("modified", "promoted_at", "created_at")
EARLIEST = date(1970, 1, 1)
_DATE_LIKE = re.compile(r"^\s*[+-]?\d{1,6}-\d{1,2}-\d{1,2}")
_SHARED_DATES = "write_dates.memories"
_SHARED_COMMITS = "write_dates.commits"
_SHARED_LAST = "write_dates.last"


class WriteDate(NamedTuple):
    """A memory's write date and where it came from: `modified`, `promoted_at`,
    `created_at` (frontmatter keys), `commit` (its last commit) or `mtime`."""

    day: date
    source: str

    @property
    def label(self) -> str:
        """How a message names it: "the commit of 2026-03-10", "modified: 2026-03-10"."""
        if self.source == "commit":
            return f"the commit of {self.day.isoformat()}"
        if self.source == "mtime":
            return f"the file's mtime ({self.day.isoformat()})"
        return f"{self.source}: {self.day.isoformat()}"


def write_date(ctx: Context, memory: Memory) -> WriteDate:
    """When `memory` was written and how that is known; computed once per run and memory.

    Git is asked once per store (and cached per HEAD under curator's storage root), never
    once per memory.
    """
    known: dict[str, WriteDate] = ctx.shared.setdefault(_SHARED_DATES, {})
    found = known.get(memory.rel)
    if found is None:
        found = _from_frontmatter(memory, ctx.today) or _from_git(ctx, memory)
        if found is None:
            found = WriteDate(_mtime_day(memory.mtime, ctx.today), "mtime")
        known[memory.rel] = found
    return found


def last_write(ctx: Context, memory: Memory) -> WriteDate:
    """The latest day any witness gives for the memory's write: its frontmatter date, and
    its last commit when tracked and unchanged, else its mtime. Nothing in the text was
    written after it, so a date past it looked ahead."""
    known: dict[str, WriteDate] = ctx.shared.setdefault(_SHARED_LAST, {})
    found = known.get(memory.rel)
    if found is None:
        front = _from_frontmatter(memory, ctx.today)
        file = _from_git(ctx, memory) or WriteDate(_mtime_day(memory.mtime, ctx.today), "mtime")
        found = known[memory.rel] = front if front is not None and front.day > file.day else file
    return found


def committed(ctx: Context, memory: Memory) -> date | None:
    """The day of the file's last commit when git vouches for it (tracked, unchanged
    since); None otherwise."""
    found = _from_git(ctx, memory)
    return found.day if found is not None else None


def _mtime_day(mtime: float, today: date) -> date:
    try:
        return datetime.fromtimestamp(mtime).date()
    except (OverflowError, OSError, ValueError):
        return today  # an mtime no calendar holds: as if written today


def frontmatter_date_problems(memory: Memory, today: date) -> list[tuple[str, str]]:
    """(key, problem) for each write-date key whose value cannot be a write date."""
    problems = []
    for key in FRONTMATTER_KEYS:
        value = memory.frontmatter.get(key)
        day = _usable_day(value, today) if value is not None else None
        if isinstance(day, str) and day:
            problems.append((key, f"{key}: {_shown(value)} {day}"))
    return problems


def _from_frontmatter(memory: Memory, today: date) -> WriteDate | None:
    for key in FRONTMATTER_KEYS:
        value = memory.frontmatter.get(key)
        if value is None:
            continue
        day = _usable_day(value, today)
        if isinstance(day, date):
            return WriteDate(day, key)
    return None


def _usable_day(value: Any, today: date) -> date | str:
    """The day a frontmatter value names, or why it is not a write date ('' when it does
    not even look like a date: silently ignored)."""
    try:
        day = as_date(value)
    except (ValueError, OverflowError, OSError):
        day = None
    if day is None:
        looks_dated = isinstance(value, str) and _DATE_LIKE.match(value)
        return "is not a real date" if looks_dated else ""
    if day < EARLIEST:
        return f"is before {EARLIEST.isoformat()}"
    if day > today + timedelta(days=1):  # a day of slack for time zones
        return "is in the future"
    return day


def _shown(value: Any) -> str:
    text = value.isoformat() if isinstance(value, (date, datetime)) else str(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _from_git(ctx: Context, memory: Memory) -> WriteDate | None:
    commit = _store_commits(ctx).get(memory.rel)
    if commit is None:
        return None
    data = memory.text.encode("utf-8")
    if blob_id(data) != commit.blob and blob_id(b"\xef\xbb\xbf" + data) != commit.blob:
        return None  # changed since its last commit: the mtime is the better witness
    return WriteDate(commit.day, "commit")


def _store_commits(ctx: Context) -> dict[str, FileCommit]:
    commits: dict[str, FileCommit] | None = ctx.shared.get(_SHARED_COMMITS)
    if commits is None:
        repo = discovery.repo_root(ctx.store.root)
        commits = {} if repo is None else last_commits(repo, ctx.store.root, cache_dir(ctx.config))
        ctx.shared[_SHARED_COMMITS] = commits
    return commits
